def run_demo():
    print("list:", [1, 2, 3])
    print("tuple:", (1, 2))
    print("set:", {1, 2})
    print("dict:", {"a": 1})
    print("stack: push 1, pop 1")
    print("queue: [1, 2]")
    print("linked list: 1 -> 2")


if __name__ == "__main__":
    run_demo()
