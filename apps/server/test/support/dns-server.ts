import dns2 from 'dns2';

const { Packet } = dns2;
// The typings omit response codes; these are RFC 1035's.
const RCODE = { SERVFAIL: 2, NXDOMAIN: 3 } as const;

export interface ZoneRecords {
  TXT?: string[];
  MX?: Array<{ exchange: string; priority: number }>;
  CNAME?: string;
  A?: string[];
  SRV?: Array<{ priority: number; weight: number; port: number; target: string }>;
}

/**
 * A real DNS server on loopback (UDP and TCP on one port). Tests publish records with
 * `set`, and make a name fail (`SERVFAIL`) or go silent (timeout) to test those outcomes.
 */
export class TestDnsServer {
  private zone = new Map<string, ZoneRecords>();
  private failing = new Set<string>();
  private silent = new Set<string>();
  private udp: ReturnType<typeof dns2.createServer>;
  private tcp: ReturnType<typeof dns2.createServer>;
  port = 0;

  constructor() {
    const handle: dns2.DnsHandler = (request, send, rinfo) => this.answer(request, send, rinfo);
    this.udp = dns2.createServer({ udp: true, handle });
    this.tcp = dns2.createServer({ tcp: true, handle });
  }

  private answer(...[request, send]: Parameters<dns2.DnsHandler>): unknown {
    const response = Packet.createResponseFromRequest(request);
    const question = request.questions[0];
    if (!question) return send(response);
    const name = question.name.toLowerCase().replace(/\.$/, '');
    if (this.silent.has(name)) return; // never answer: the client times out
    if (this.failing.has(name)) {
      response.header.rcode = RCODE.SERVFAIL;
      return send(response);
    }
    const records = this.zone.get(name);
    if (!records) {
      response.header.rcode = RCODE.NXDOMAIN;
      return send(response);
    }
    const base = { name: question.name, class: Packet.CLASS.IN, ttl: 1 };
    const answers = response.answers as unknown as Array<Record<string, unknown>>;
    if (question.type === Packet.TYPE.TXT) {
      // Long values are split into 255-byte character-strings, as real zones do.
      for (const data of records.TXT ?? []) {
        answers.push({ ...base, type: Packet.TYPE.TXT, data: data.match(/.{1,255}/g) ?? [''] });
      }
    } else if (question.type === Packet.TYPE.MX) {
      for (const mx of records.MX ?? []) {
        answers.push({ ...base, type: Packet.TYPE.MX, exchange: mx.exchange, priority: mx.priority });
      }
    } else if (question.type === Packet.TYPE.CNAME && records.CNAME) {
      answers.push({ ...base, type: Packet.TYPE.CNAME, domain: records.CNAME });
    } else if (question.type === Packet.TYPE.SRV) {
      for (const srv of records.SRV ?? []) answers.push({ ...base, type: Packet.TYPE.SRV, ...srv });
    } else if (question.type === Packet.TYPE.A) {
      for (const address of records.A ?? []) answers.push({ ...base, type: Packet.TYPE.A, address });
    }
    send(response);
  }

  static async start(): Promise<TestDnsServer> {
    // UDP on a free port, then TCP on the same number: DNS_SERVERS names one port. Another
    // process may already hold that number for TCP; then start again on another free port.
    for (let attempt = 1; ; attempt++) {
      const server = new TestDnsServer();
      await server.udp.listen({ udp: { port: 0, address: '127.0.0.1' } });
      server.port = (server.udp.addresses().udp as { port: number }).port;
      try {
        await new Promise<void>((resolve, reject) => {
          server.tcp.once('error', reject);
          server.tcp.listen({ tcp: { port: server.port, address: '127.0.0.1' } }).then(() => {
            server.tcp.off('error', reject);
            resolve();
          }, reject);
        });
        return server;
      } catch (error) {
        await server.udp.close();
        if (attempt >= 20) throw error;
      }
    }
  }

  /** The DNS_SERVERS value that points Atrium at this server. */
  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** Replaces what the server answers for a name. */
  set(name: string, records: ZoneRecords): void {
    const key = name.toLowerCase();
    this.failing.delete(key);
    this.silent.delete(key);
    this.zone.set(key, records);
  }

  remove(name: string): void {
    this.zone.delete(name.toLowerCase());
  }

  failWithServfail(name: string): void {
    this.failing.add(name.toLowerCase());
  }

  neverAnswer(name: string): void {
    this.silent.add(name.toLowerCase());
  }

  reset(): void {
    this.zone.clear();
    this.failing.clear();
    this.silent.clear();
  }

  async close(): Promise<void> {
    await Promise.all([this.udp.close(), this.tcp.close()]);
  }
}
