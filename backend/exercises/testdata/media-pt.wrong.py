notas = [float(x) for x in input().split()]
print(sum(notas) // len(notas))
