import { execFile } from 'node:child_process';

/** Debian's pyspf (python3-spf); the system's python, which has its packages, not a pyenv one. */
const PYTHON = '/usr/bin/python3';

// pyspf resolves through dnspython when it is installed, else through pydns (python3-dns, its
// Debian dependency): both are pointed at the loopback DNS server, nothing else is asked.
const SCRIPT = `
import sys
import spf
server, port = sys.argv[1], int(sys.argv[2])
if spf.DNSLookup is spf.DNSLookup_pydns:
    spf.DNS.defaults['server'] = [server]
    spf.DNS.defaults['port'] = port
else:
    resolver = spf.dns.resolver.Resolver(configure=False)
    resolver.nameservers = [server]
    resolver.port = port
    spf.dns.resolver.default_resolver = resolver
result, explanation = spf.check2(i=sys.argv[3], s=sys.argv[4], h=sys.argv[5])
print(result)
print(explanation)
`;

/**
 * An independent SPF evaluator's verdict (RFC 7208 check_host()) for mail from `ip` with MAIL FROM
 * `sender` and HELO `helo`, asking only the DNS server at 127.0.0.1:`port`. Asynchronous: the
 * test's DNS server answers from this same process.
 */
export function pyspfResult(
  port: number,
  check: { ip: string; sender: string; helo: string },
): Promise<{ result: string; explanation: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      PYTHON,
      ['-c', SCRIPT, '127.0.0.1', String(port), check.ip, check.sender, check.helo],
      { timeout: 30_000 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`pyspf failed: ${error.message}\n${stderr}`));
        const [result = '', explanation = ''] = stdout.split('\n');
        resolve({ result, explanation });
      },
    );
  });
}
