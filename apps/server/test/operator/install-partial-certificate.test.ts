import { afterAll } from 'vitest';
import { installedHostScenario } from './installed-host-scenario.ts';
import { OperatorCertificates } from './operator-certificates.ts';

// The operator's certificate covers only the console's address and the mail host: those names
// (and Postfix and Dovecot) serve it, while Caddy still issues certificates for the organisations'
// sites (from its own CA here, --internal-tls; from Let's Encrypt on a public host).

const certificates = new OperatorCertificates(['IP:127.0.0.1', 'DNS:mail.atrium.test']);
afterAll(() => certificates.remove());

installedHostScenario({
  name: 'an operator’s certificate for the console and the mail host only',
  installArgs: () => ['--tls-cert', certificates.cert, '--tls-key', certificates.key],
  mailCertificate: () => certificates.certificate(),
  operatorCertificate: () => certificates.certificate(),
  operatorCa: () => certificates.ca,
  operatorCovers: ['mail'],
});
