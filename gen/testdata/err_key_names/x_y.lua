--! name: x_y
--! key: k = {a_b}:<a__b>
return 1
