import { afterAll } from 'vitest';
import { installedHostScenario } from './installed-host-scenario.ts';
import { OperatorCertificates } from './operator-certificates.ts';

// The operator's certificate for every name of the host (a wildcard for the sites, the console's
// address, the mail host): Caddy serves it, and Postfix and Dovecot serve the same file.

const certificates = new OperatorCertificates(['IP:127.0.0.1', 'DNS:mail.atrium.test', 'DNS:*.atrium.test']);
afterAll(() => certificates.remove());

installedHostScenario({
  name: 'an operator’s certificate for every name',
  installArgs: () => ['--tls-cert', certificates.cert, '--tls-key', certificates.key],
  mailCertificate: () => certificates.certificate(),
  operatorCertificate: () => certificates.certificate(),
  operatorCa: () => certificates.ca,
  operatorCovers: ['mail', 'sites'],
});
