import { startDevServer } from '../scripts/lib/temporal-dev-server';
startDevServer({ logFile: '/tmp/devexit.log', headless: true, extraArgs: ['--db-filename', '/nonexistent/dir/x.db'] }).then((d) => { console.log('started?'); return d.stop(); }, (e) => console.log('ERR:', e.message));
