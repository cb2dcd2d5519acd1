local function tagged(id)
  return 'job:' .. id
end
