// The start-up floor bench/get compares `lomme-vault get` with: a Swift program that
// imports Foundation and prints one line, linked with -static-stdlib like lomme-vault.
import Foundation

print("floor")
