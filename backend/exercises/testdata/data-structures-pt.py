class Pilha:
    def __init__(self):
        self.itens = []

    def empilhar(self, x):
        self.itens.append(x)

    def desempilhar(self):
        return self.itens.pop()


def run_demo():
    print("lista:", [1, 2, 3])
    print("tupla:", (1, 2))
    print("conjunto:", {1, 2})
    print("dicionário:", {"a": 1})
    p = Pilha()
    p.empilhar(1)
    print("pilha:", p.desempilhar())
    print("fila: [1, 2]")
    print("lista encadeada: 1 -> 2")


if __name__ == "__main__":
    run_demo()
