def eh_palindromo(texto):
    return texto == texto[::-1]
