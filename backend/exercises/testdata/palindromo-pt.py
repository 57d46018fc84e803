import unicodedata


def eh_palindromo(texto):
    sem_acentos = unicodedata.normalize("NFD", texto)
    letras = [c.lower() for c in sem_acentos if c.isalnum()]
    return letras == letras[::-1]
