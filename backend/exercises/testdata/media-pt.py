notas = [float(x) for x in input().split()]
print(f"{sum(notas) / len(notas):.2f}")
