def is_palindrome(text):
    return text.lower() == text.lower()[::-1]
