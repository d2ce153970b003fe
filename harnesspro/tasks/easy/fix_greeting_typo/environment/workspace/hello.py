message = 'Hello, world!'
print(mesage)
