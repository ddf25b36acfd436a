import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import t from 'tap';
import { clientAddress, TrustedProxies } from '../../src/http/client-address.js';
import { loadConfig } from '../../src/config/load.js';

/** A request from `peer` with the given X-Forwarded-For header lines. */
function request(peer: string, forwarded?: string | string[]): IncomingMessage {
  const socket = new Socket();
  Object.defineProperty(socket, 'remoteAddress', { value: peer });
  const req = new IncomingMessage(socket);
  if (forwarded !== undefined) req.headers['x-forwarded-for'] = forwarded;
  return req;
}

t.test('the client behind trusted proxies: the rightmost X-Forwarded-For entry that is not a trusted proxy', async (t) => {
  const none = new TrustedProxies([]);
  const lb = new TrustedProxies(['10.0.0.0/8', '2001:db8::/32']);
  const cases: Array<[string, IncomingMessage, TrustedProxies, string]> = [
    ['no trusted proxy: the peer, whatever the header says', request('198.51.100.7', '203.0.113.9'), none, '198.51.100.7'],
    ['a peer that is not trusted: its header is not believed', request('198.51.100.7', '203.0.113.9'), lb, '198.51.100.7'],
    ['a trusted peer: the address it appended', request('10.0.0.2', '203.0.113.9'), lb, '203.0.113.9'],
    ['what the client wrote to the left proves nothing', request('10.0.0.2', '1.2.3.4, 203.0.113.9'), lb, '203.0.113.9'],
    ['through two trusted proxies', request('10.0.0.2', '203.0.113.9, 10.1.1.1'), lb, '203.0.113.9'],
    ['header lines joined in order', request('10.0.0.2', ['1.2.3.4', '203.0.113.9, 10.1.1.1']), lb, '203.0.113.9'],
    ['every entry trusted: the leftmost', request('10.0.0.2', '10.9.9.9, 10.1.1.1'), lb, '10.9.9.9'],
    ['a trusted peer without the header: the peer', request('10.0.0.2'), lb, '10.0.0.2'],
    ['an IPv4-mapped peer is judged and named as IPv4', request('::ffff:10.0.0.2', '203.0.113.9'), lb, '203.0.113.9'],
    ['and named so when it is the client', request('::ffff:198.51.100.7'), none, '198.51.100.7'],
    ['ports and brackets', request('10.0.0.2', '[2001:db8::1]:443, 203.0.113.9:5555'), lb, '203.0.113.9'],
    [
      'an IPv6 client, in one spelling',
      request('2001:db8::5', '2001:DB8:0:0:0:0:0:9, 2001:db8::1'),
      new TrustedProxies(['2001:db8::1/128', '2001:db8::5']),
      '2001:db8:0:0:0:0:0:9',
    ],
  ];
  for (const [name, req, trusted, expected] of cases) t.equal(clientAddress(req, trusted), expected, name);
  t.throws(() => new TrustedProxies(['10.0.0.0/33']), /not an IP address or range/);
});

t.test('GATEWAY_TRUSTED_PROXIES: comma-separated CIDRs, none by default, a wrong one named with its path', async (t) => {
  t.same(loadConfig('config/gateway.yaml', {}).config.server.trusted_proxies, []);
  t.same(loadConfig('config/gateway.yaml', { GATEWAY_TRUSTED_PROXIES: '10.0.0.0/8, 192.168.1.1 ,fd00::/8' }).config.server.trusted_proxies, [
    '10.0.0.0/8',
    '192.168.1.1',
    'fd00::/8',
  ]);
  t.throws(
    () => loadConfig('config/gateway.yaml', { GATEWAY_TRUSTED_PROXIES: '10.0.0.0/8,lb.internal' }),
    /\/server\/trusted_proxies\/1 must be an IP address or a CIDR range/,
  );
});
