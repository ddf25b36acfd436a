import { readFileSync } from 'node:fs';
import t from 'tap';
import { policyAllowing, publicAddressPolicy } from '../../src/net/address-policy.js';
import { GuardedFetcher, ImageFetchError } from '../../src/net/guarded-fetch.js';
import { CA_FILE, PNG, startImageServer } from '../helpers/image-server.js';

const ca = readFileSync(CA_FILE);

t.test('the default policy refuses every non-public address, IPv4 and IPv6', async (t) => {
  const refused = [
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '127.0.0.1',
    '127.9.9.9',
    '169.254.169.254',
    '100.100.100.200',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd00:ec2::254',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '64:ff9b::a9fe:a9fe',
    'ff02::1',
    'not-an-address',
  ];
  for (const address of refused) t.notOk(publicAddressPolicy.allows(address), `${address} refused`);
  for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '172.32.0.1']) {
    t.ok(publicAddressPolicy.allows(address), `${address} allowed`);
  }
  const opened = policyAllowing(['127.0.0.1/32']);
  t.ok(opened.allows('127.0.0.1'), 'an operator range is opened');
  t.notOk(opened.allows('127.0.0.2'), 'and only that range');
  t.ok(opened.allows('8.8.8.8'), 'the public internet stays allowed');
  t.throws(() => policyAllowing(['not-a-range']), /not an IP range/);
});

t.test('the default policy refuses loopback by literal address and by name, before any request', async (t) => {
  const server = await startImageServer(t);
  const fetcher = new GuardedFetcher({ ca });
  const literal = await fetcher.fetch(`${server.origin}/cat.png`).catch((e: unknown) => e);
  t.type(literal, ImageFetchError);
  t.match((literal as Error).message, /127\.0\.0\.1, a private, loopback/);
  const named = await fetcher.fetch(`https://localhost:${server.port}/cat.png`).catch((e: unknown) => e);
  t.type(named, ImageFetchError, 'a name resolving to loopback is refused at connect time');
  t.match((named as Error).message, /(127\.0\.0\.1|::1), a private, loopback/);
  t.same(server.hits, [], 'the image host never saw a request');
  const plain = await fetcher.fetch(`http://example.com/cat.png`).catch((e: unknown) => e);
  t.match((plain as Error).message, /only https/);
});

t.test('an allowed host: fetched over https with the injected CA; redirects, size, time and type limits', async (t) => {
  const server = await startImageServer(t);
  // A generous time limit for everything but /silent: four TLS handshakes on a loaded machine can take 0.5 s.
  const fetcher = new GuardedFetcher({ ca, policy: policyAllowing(['127.0.0.1/32']), timeoutMs: 10_000 });
  const impatient = new GuardedFetcher({ ca, policy: policyAllowing(['127.0.0.1/32']), timeoutMs: 500 });
  const image = await fetcher.fetch(`${server.origin}/cat.png`);
  t.equal(image.mediaType, 'image/png');
  t.ok(image.data.equals(PNG), 'the bytes arrive whole');
  t.equal((await fetcher.fetch(`${server.origin}/unlabelled`)).mediaType, 'image/png', 'the type is sniffed when the server does not say');
  t.ok((await fetcher.fetch(`${server.origin}/redirect/2`)).data.equals(PNG), 'three redirects are followed');
  const cases: Array<[string, RegExp]> = [
    ['/redirect/3', /more than 3 redirects/],
    ['/to-other-loopback', /127\.0\.0\.2, a private, loopback/],
    ['/big', /larger than 10 MiB/],
    ['/big-declared', /larger than 10 MiB/],
    ['/silent', /longer than 0\.5 s/],
    ['/text', /did not answer with an image \(content type text\/html\)/],
    ['/missing', /answered HTTP 404/],
  ];
  for (const [path, reason] of cases) {
    const error = await (path === '/silent' ? impatient : fetcher).fetch(`${server.origin}${path}`).catch((e: unknown) => e);
    t.type(error, ImageFetchError, path);
    t.match((error as Error).message, reason, path);
  }
  const untrusted = await new GuardedFetcher({ policy: policyAllowing(['127.0.0.1/32']) }).fetch(`${server.origin}/cat.png`).catch((e: unknown) => e);
  t.match(
    (untrusted as Error).message,
    /could not be fetched \((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)/,
    'without the CA the certificate is refused',
  );
});
