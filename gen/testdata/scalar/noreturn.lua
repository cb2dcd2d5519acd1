--! name: noreturn
--! doc: Declares no reply type: the reply comes back as go-redis decodes it.
return {1, 'two'}
