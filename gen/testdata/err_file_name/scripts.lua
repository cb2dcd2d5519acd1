--! doc: Its file would be scripts.go, the runtime's.
return 1
