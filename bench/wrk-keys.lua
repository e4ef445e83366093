-- wrk script for bench/wrk.mjs: cycles the Authorization header through `Bearer worker-0` ..
-- `Bearer worker-(N-1)`, N the first argument after the URL. Under --isolate each key is a tenant
-- of its own. The N requests are formatted once, in init, so each request costs wrk one lookup.
local requests = {}
local index = 0

function init(args)
  for i = 0, tonumber(args[1]) - 1 do
    -- wrk.format replaces wrk.headers with the table it is given: copy the -H headers over.
    local headers = {}
    for name, value in pairs(wrk.headers) do
      headers[name] = value
    end
    headers["Authorization"] = "Bearer worker-" .. i
    requests[#requests + 1] = wrk.format(nil, nil, headers)
  end
end

function request()
  index = index % #requests + 1
  return requests[index]
end
