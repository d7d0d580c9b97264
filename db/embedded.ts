import fs from 'node:fs';

export interface EmbeddedPostgres {
  databaseUrl: string;
  stop(): Promise<void>;
}

/**
 * Postgres without an install: PGlite (Postgres compiled to WASM) persisted under
 * `dataDir`, served over the wire protocol so `pg` connects to it like any server.
 * Its socket server multiplexes connections and keeps a transaction on one connection.
 */
export async function startEmbeddedPostgres(dataDir: string, port: number): Promise<EmbeddedPostgres> {
  fs.mkdirSync(dataDir, { recursive: true });
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const db = await PGlite.create(dataDir);
  const server = new PGLiteSocketServer({ db, port, host: '127.0.0.1', maxConnections: 32 });
  await server.start();
  return {
    databaseUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
