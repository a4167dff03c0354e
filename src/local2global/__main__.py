from local2global.cli import console

console()
