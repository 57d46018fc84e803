def run_demo():
    print("lista:", [1, 2, 3])


if __name__ == "__main__":
    run_demo()
