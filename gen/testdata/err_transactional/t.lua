--! key: k
--! flags: transactional
redis.call('SET', KEYS[1], 1)
