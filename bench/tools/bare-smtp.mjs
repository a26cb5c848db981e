// The bare anchor (issue #13): smtp-server + mailparser + one SQLite insert per message,
// in its own process, acknowledging each message after its row is committed with
// synchronous=FULL in WAL mode (as durable as mailagent's 250). Nothing else: no routing, no
// authentication, no classification, no events. The pipeline bench measures it beside smtp-sink
// with the same smtp-source runs.
//   node bench/tools/bare-smtp.mjs <data dir>     (run from the repository root: its node_modules)
// First stdout line: the SMTP port. SIGTERM stops it.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

const dir = process.argv[2];
if (!dir) throw new Error('usage: bare-smtp.mjs <data dir>');
const db = new Database(join(dir, 'bare.db'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.exec(`create table if not exists messages (id integer primary key, mail_from text, rcpt_to text, message_id text,
  subject text, from_addr text, text_body text, raw blob not null, received_at text not null)`);
const insert = db.prepare('insert into messages (mail_from, rcpt_to, message_id, subject, from_addr, text_body, raw, received_at) values (?, ?, ?, ?, ?, ?, ?, ?)');

const server = new SMTPServer({
  name: 'bare.localhost', logger: false, authOptional: true, hideSTARTTLS: true, disabledCommands: ['AUTH', 'STARTTLS'],
  disableReverseLookup: true, size: 40 * 1024 * 1024, maxClients: 200,
  onData(stream, session, callback) {
    const chunks = [];
    stream.on('data', (c) => chunks.push(c));
    stream.on('end', () => {
      const raw = Buffer.concat(chunks);
      simpleParser(raw).then((m) => {
        // One row, its own transaction: committed (and fsynced) before the 250.
        insert.run(session.envelope.mailFrom ? session.envelope.mailFrom.address : '', JSON.stringify(session.envelope.rcptTo.map((r) => r.address)),
          m.messageId ?? null, m.subject ?? null, m.from?.text ?? null, m.text ?? null, raw, new Date().toISOString());
        callback(null, 'Ok: stored');
      }, (err) => callback(err));
    });
  },
});
server.on('error', () => { /* connection errors (smtp-source resets after QUIT) */ });
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => { db.close(); process.exit(0); }));
