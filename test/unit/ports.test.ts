import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { EmbeddedPostgresError, firstUntraversable, startEmbeddedPostgres } from '../../db/embedded';
import { DEFAULT_PORTS, describePortHolder, portInUseMessage } from '../../db/ports';

describe('start-up ports', () => {
  it('listens by default outside the ephemeral range, where an outgoing connection could already hold the port', () => {
    const [low, high] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    for (const [name, port] of Object.entries(DEFAULT_PORTS)) {
      expect({ name, inEphemeralRange: port >= low! && port <= high! }).toEqual({ name, inEphemeralRange: false });
    }
  });

  it('names the process holding a port, and says how to choose another', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const { port } = server.address() as net.AddressInfo;
    try {
      expect(describePortHolder(port)).toContain(`pid ${process.pid} (`);
      const message = portInUseMessage(port, 'the API', 'PORT');
      expect(message).toContain(`Port ${port} on 127.0.0.1 is in use by pid ${process.pid}`);
      expect(message).toContain('choose another port with PORT');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    // Once it is closed nothing holds it.
    expect(describePortHolder(port)).toBeUndefined();
  });
});

describe('a data folder the embedded server cannot reach', () => {
  const someoneElse = { uid: 4_000_123, gid: 4_000_123 };

  it('finds the first folder on the way that the account cannot pass through', () => {
    const top = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-reach-'));
    try {
      const data = path.join(top, 'checkout', '.data');
      fs.mkdirSync(data, { recursive: true });
      fs.chmodSync(top, 0o700); // as mkdtemp makes it, and as root's home is
      expect(firstUntraversable(data, someoneElse)).toBe(top);
      fs.chmodSync(top, 0o711);
      expect(firstUntraversable(data, someoneElse)).toBeUndefined();
    } finally {
      fs.rmSync(top, { recursive: true, force: true });
    }
  });

  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  // Only as root does the server run as another account (the postgres one); as anyone else the folder is their own.
  (asRoot ? it : it.skip)('stops before initdb with a message saying exactly what to do', async () => {
    const top = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-reach-'));
    try {
      const attempt = startEmbeddedPostgres({ dataRoot: path.join(top, '.data'), port: 1 });
      await expect(attempt).rejects.toBeInstanceOf(EmbeddedPostgresError);
      await expect(attempt).rejects.toThrow(`cannot pass through ${top} `);
      await expect(attempt).rejects.toThrow(`chmod o+x ${top}`);
      expect(fs.existsSync(path.join(top, '.data', 'postgres'))).toBe(false);
    } finally {
      fs.rmSync(top, { recursive: true, force: true });
    }
  });
});
