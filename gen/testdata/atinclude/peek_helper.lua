local function peekAll(key)
  return redis.call('LRANGE', key, 0, -1)
end
