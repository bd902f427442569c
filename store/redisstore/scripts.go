package redisstore

import (
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/roomd/roomd/store"
)

// Errors the scripts return; mapErr turns them into the sentinels.
const (
	replyNotFound = "ROOMD_NOTFOUND"
	replyExists   = "ROOMD_EXISTS"
	replyFenced   = "ROOMD_FENCED"
	replyGap      = "ROOMD_GAP"
)

// The scripts. KEYS are always the room's fence, snap, log and meta keys
// (append needs only fence, log and meta, in that order). A script that
// refuses changes nothing.
var (
	// ARGV: first token, snapshot rev, snapshot data, create nonce.
	scriptCreate = redis.NewScript(`
local meta = KEYS[4]
if redis.call('EXISTS', meta) == 1 then
  local ct = redis.call('HGET', meta, 'ctoken')
  if ct and redis.call('HGET', meta, 'nonce') == ARGV[4] and redis.call('GET', KEYS[1]) == ct then
    return ct -- a retry of this very create, and nobody opened the room since
  end
  return redis.error_reply('ROOMD_EXISTS')
end
local token = ARGV[1]
local cur = redis.call('GET', KEYS[1])
if cur and tonumber(cur) >= tonumber(token) then
  redis.call('INCR', KEYS[1])
  token = redis.call('GET', KEYS[1])
else
  redis.call('SET', KEYS[1], token)
end
redis.call('PERSIST', KEYS[1])
redis.call('DEL', KEYS[2], KEYS[3])
redis.call('HSET', KEYS[2], 'rev', ARGV[2], 'data', ARGV[3])
redis.call('HSET', meta, 'last', ARGV[2], 'nonce', ARGV[4], 'ctoken', token)
return token
`)
	scriptOpen = redis.NewScript(`
if redis.call('EXISTS', KEYS[4]) == 0 then return redis.error_reply('ROOMD_NOTFOUND') end
redis.call('INCR', KEYS[1])
local snap = redis.call('HMGET', KEYS[2], 'rev', 'data')
local out = {redis.call('GET', KEYS[1]), snap[1] or '0', snap[2] or '', redis.call('HGET', KEYS[4], 'ended') or '0'}
local log = redis.call('LRANGE', KEYS[3], 0, -1)
for i = 1, #log do out[#out + 1] = log[i] end
return out
`)
	// KEYS: fence, log, meta. ARGV: token, first rev, entries (8-byte
	// big-endian rev + data each).
	scriptAppend = redis.NewScript(luaAppendLog + `
return appendLog(tonumber(ARGV[2]), #ARGV - 2, 2)
`)
	// ARGV: token, snapshot rev, snapshot data, first revision kept
	// (Snapshot.FirstKept).
	scriptSnapshot = redis.NewScript(`
if redis.call('EXISTS', KEYS[4]) == 0 then return redis.error_reply('ROOMD_NOTFOUND') end
local cur = redis.call('GET', KEYS[1])
if cur ~= ARGV[1] then return redis.error_reply('ROOMD_FENCED token ' .. ARGV[1] .. ', current ' .. tostring(cur)) end
local rev = tonumber(ARGV[2])
if rev < tonumber(redis.call('HGET', KEYS[2], 'rev') or '0') then return 'OLD' end
redis.call('HSET', KEYS[2], 'rev', ARGV[2], 'data', ARGV[3])
local last = tonumber(redis.call('HGET', KEYS[4], 'last'))
if rev > last then
  -- ahead of the log: nothing stored can lead up to it
  redis.call('DEL', KEYS[3])
  redis.call('HSET', KEYS[4], 'last', ARGV[2])
else
  local len = redis.call('LLEN', KEYS[3])
  local drop = tonumber(ARGV[4]) - (last - len + 1) -- the log holds last-len+1 .. last
  if drop >= len then
    redis.call('DEL', KEYS[3])
  elseif drop > 0 then
    redis.call('LTRIM', KEYS[3], drop, -1)
  end
end
local ttl = redis.call('PTTL', KEYS[4])
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return 'OK'
`)
	// ARGV: token, ttl in ms.
	scriptEnd = redis.NewScript(`
if redis.call('EXISTS', KEYS[4]) == 0 then return redis.error_reply('ROOMD_NOTFOUND') end
local cur = redis.call('GET', KEYS[1])
if cur ~= ARGV[1] then return redis.error_reply('ROOMD_FENCED token ' .. ARGV[1] .. ', current ' .. tostring(cur)) end
redis.call('HSET', KEYS[4], 'ended', '1')
for i = 1, 4 do redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
return 'OK'
`)
	// KEYS: the board's sorted set, names hash and players hash
	// (Redis.boardKeys). ARGV: sorted-set score, member, name,
	// LeaderboardSize, expiry in ms since the epoch (0: leave it), player
	// id (empty: none). A score with a player id is indexed by it in the
	// players hash, one without by its name in the names hash. A member's
	// first 16 characters are its At, in hex; from the 25th it is the JSON
	// score. Returns 1 when the score was kept, 0 when the player's or
	// name's older score is as good.
	scriptRecord = redis.NewScript(`
local score = tonumber(ARGV[1])
local member = ARGV[2]
local function at(m) -- a member's At, as two numbers: 64 bits do not fit in one
  return tonumber(string.sub(m, 1, 8), 16), tonumber(string.sub(m, 9, 16), 16)
end
local index, who = KEYS[2], ARGV[3]
if ARGV[6] ~= '' then index, who = KEYS[3], ARGV[6] end
local keep = true
local old = redis.call('HGET', index, who)
local oldScore = old and redis.call('ZSCORE', KEYS[1], old)
if oldScore then
  oldScore = tonumber(oldScore)
  if score == oldScore then
    local a1, a2 = at(member)
    local b1, b2 = at(old)
    keep = a1 < b1 or (a1 == b1 and a2 < b2)
  else
    keep = score < oldScore
  end
  if keep then redis.call('ZREM', KEYS[1], old) end
end
if keep then
  redis.call('ZADD', KEYS[1], ARGV[1], member)
  redis.call('HSET', index, who, member)
  -- A hash created now (one without an expiry) takes the board's; one
  -- that has its own keeps it, to the millisecond (PTTL is relative).
  if ARGV[5] == '0' and redis.call('PTTL', index) == -1 then
    local ttl = redis.call('PTTL', KEYS[1])
    if ttl > 0 then redis.call('PEXPIRE', index, ttl) end
  end
  local size = tonumber(ARGV[4])
  local gone = redis.call('ZRANGE', KEYS[1], size, -1)
  for i = 1, #gone do
    local ok, s = pcall(cjson.decode, string.sub(gone[i], 25))
    if ok and type(s) == 'table' then
      local h, f = KEYS[2], s.name
      if type(s.player) == 'string' and s.player ~= '' then h, f = KEYS[3], s.player end
      if type(f) == 'string' and redis.call('HGET', h, f) == gone[i] then
        redis.call('HDEL', h, f)
      end
    end
  end
  if #gone > 0 then redis.call('ZREMRANGEBYRANK', KEYS[1], size, -1) end
end
if ARGV[5] ~= '0' then
  for i = 1, 3 do redis.call('PEXPIREAT', KEYS[i], ARGV[5]) end
end
if keep then return 1 end
return 0
`)
	// KEYS: the claim's key (Redis.claimKey). ARGV: value, ttl in ms (0:
	// never expires). Returns {1, value} when it stored the value, {0, the
	// value held} when the key was held: one atomic round trip, where SET
	// NX followed by GET could find the key expired in between.
	scriptClaim = redis.NewScript(`
local held = redis.call('GET', KEYS[1])
if held then return {0, held} end
if ARGV[2] == '0' then
  redis.call('SET', KEYS[1], ARGV[1])
else
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
return {1, ARGV[1]}
`)
	allScripts = []*redis.Script{scriptCreate, scriptOpen, scriptAppend, scriptSnapshot, scriptEnd, scriptRecord, scriptClaim,
		scriptAppendWith, scriptEnqueue, scriptDue, scriptRetry, scriptAppendHold, scriptMove}
)

// luaAppendLog is the Lua function that appends a room's entries, shared by
// scriptAppend and scriptAppendWith: fenced (KEYS[1], the lease's fence,
// against ARGV[1], its token), n entries ARGV[off+1 .. off+n] (8-byte
// big-endian rev + data each) after the meta's last revision (KEYS[3]) onto
// the log (KEYS[2]), which takes the meta's expiry. It returns 'OK',
// 'DUP' for a retry of an append that landed (nothing written), or an
// error reply (ROOMD_NOTFOUND, ROOMD_FENCED, ROOMD_GAP).
const luaAppendLog = `
local function appendLog(first, n, off)
  if redis.call('EXISTS', KEYS[3]) == 0 then return redis.error_reply('ROOMD_NOTFOUND') end
  local cur = redis.call('GET', KEYS[1])
  if cur ~= ARGV[1] then return redis.error_reply('ROOMD_FENCED token ' .. ARGV[1] .. ', current ' .. tostring(cur)) end
  if n == 0 then return 'OK' end
  local last = tonumber(redis.call('HGET', KEYS[3], 'last'))
  if first <= last then
    local len = redis.call('LLEN', KEYS[2])
    local start = len - 1 - (last - first)
    if first + n - 1 <= last and start >= 0 then
      local got = redis.call('LRANGE', KEYS[2], start, start + n - 1)
      local same = #got == n
      for i = 1, n do
        if got[i] ~= ARGV[off + i] then same = false; break end
      end
      if same then return 'DUP' end -- a retry of an append that landed
    end
  end
  if first ~= last + 1 then return redis.error_reply('ROOMD_GAP rev ' .. string.format('%d', first) .. ' after ' .. tostring(last)) end
  local i = off + 1
  while i <= off + n do
    local j = math.min(i + 999, off + n)
    redis.call('RPUSH', KEYS[2], unpack(ARGV, i, j))
    i = j + 1
  end
  redis.call('HSET', KEYS[3], 'last', string.format('%d', first + n - 1))
  local ttl = redis.call('PTTL', KEYS[3])
  if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
  return 'OK'
end
`

// mapErr turns the scripts' refusals and a closed client into the
// sentinels; other errors (network, timeouts) stay as they are.
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, redis.ErrClosed) {
		return store.ErrClosed
	}
	msg := err.Error()
	for _, m := range []struct {
		reply string
		err   error
	}{{replyFenced, store.ErrFenced}, {replyGap, store.ErrGap}, {replyNotFound, store.ErrNotFound}, {replyExists, store.ErrExists}} {
		if i := strings.Index(msg, m.reply); i >= 0 {
			if detail := strings.TrimSpace(msg[i+len(m.reply):]); detail != "" {
				return fmt.Errorf("%s: %w", detail, m.err)
			}
			return m.err
		}
	}
	return err
}

func isNoScript(err error) bool { return err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") }
