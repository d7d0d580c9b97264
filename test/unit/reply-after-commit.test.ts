import express from 'express';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { replyAfterCommit } from '../../core/reply-after-commit';

/** A gate the test opens by hand: stands in for the moment a transaction commits. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => { open = resolve; });
  return { opened, open };
}

describe('replyAfterCommit', () => {
  let server: Server;
  let base: string;
  let commit = gate();
  const events: string[] = [];

  beforeAll(async () => {
    const app = express();
    app.post('/sign-in', async (_req, res, next) => {
      try {
        await replyAfterCommit(res, async () => {
          res.set('x-held', 'yes').redirect(303, '/me');
          events.push('handler replied');
          await commit.opened;
          events.push('committed');
        });
      } catch (error) { next(error); }
    });
    app.post('/fails', async (_req, res, next) => {
      try {
        await replyAfterCommit(res, async () => {
          res.status(200).send('saved');
          throw new Error('serialization failure');
        });
      } catch (error) { next(error); }
    });
    app.use((_error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(500).send('rolled back');
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => { await new Promise((resolve) => server.close(resolve)); });

  it('sends the redirect only once the work has finished, with the headers the handler set', async () => {
    commit = gate();
    events.length = 0;
    const answer = fetch(`${base}/sign-in`, { method: 'POST', redirect: 'manual' }).then((response) => {
      events.push('browser got reply');
      return response;
    });
    while (!events.includes('handler replied')) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(events).toEqual(['handler replied']);
    commit.open();
    const response = await answer;
    expect(events).toEqual(['handler replied', 'committed', 'browser got reply']);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/me');
    expect(response.headers.get('x-held')).toBe('yes');
  });

  it('drops the held reply when the work fails, so the error handler answers', async () => {
    const response = await fetch(`${base}/fails`, { method: 'POST' });
    expect(response.status).toBe(500);
    expect(await response.text()).toBe('rolled back');
  });
});
