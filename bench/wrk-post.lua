-- wrk script for bench/wrk.mjs: a POST whose body is the first argument after the URL. wrk sends
-- the -H headers (the content type, the key) with it and formats the request once, after init.
function init(args)
  wrk.method = "POST"
  wrk.body = args[1]
end
