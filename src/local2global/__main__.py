from local2global._entry import console

console()
