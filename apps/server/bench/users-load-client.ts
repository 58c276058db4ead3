// The load generator of users-load.bench.ts, in a process of its own so that it does not share
// the server's event loop: autocannon with CONNECTIONS keep-alive connections for SECONDS against
// one URL, each request from its own forwarded address (the server trusts one proxy hop), so the
// per-address rate limit stays out of the figure. Prints autocannon's result as JSON.
import autocannon from 'autocannon';

const [url, cookie, connections, seconds] = process.argv.slice(2);
let n = 0;
const result = await autocannon({
  url: url!,
  connections: Number(connections),
  duration: Number(seconds),
  headers: { cookie: cookie! },
  requests: [
    {
      setupRequest: (request) => {
        n++;
        const address = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
        return { ...request, headers: { ...request.headers, 'x-forwarded-for': address } };
      },
    },
  ],
});
process.stdout.write(JSON.stringify(result));
