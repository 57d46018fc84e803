a, b = map(int, input().split())
print("A soma é", a + b)
