--! name: x
--! key: y... = {t}:<e>
return 1
