-- serve-post.lua — wrk script for the serve bench: POST the recorded
-- request body (the file named by BENCH_BODY) as JSON, so oacheck serve
-- matches it by its request key as it would a client's.
local f = assert(io.open(os.getenv("BENCH_BODY"), "rb"))
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/json"
