/**
 * A minimal SMTP server on 127.0.0.1 for nodemailer: records each message's envelope and data,
 * and can refuse recipients permanently (550) or temporarily (451) to exercise retries.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export type ReceivedMail = { from: string; to: string[]; data: string };

export type FakeSmtp = {
  url: string;
  received: ReceivedMail[];
  /** Answers for the next RCPT commands, in order (then 250): e.g. `[451]` or `[550]`. */
  script(codes: number[]): void;
  close(): Promise<void>;
};

export async function startFakeSmtp(): Promise<FakeSmtp> {
  const received: ReceivedMail[] = [];
  let queue: number[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // A client killed mid-session (the fault suite) resets the connection: not this server's error.
    socket.on('error', () => {});
    socket.setEncoding('utf8');
    let buffer = '';
    let inData = false;
    let current: ReceivedMail = { from: '', to: [], data: '' };
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply('220 fake-smtp ESMTP ready');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end === -1) return;
          current.data = buffer.slice(0, end);
          buffer = buffer.slice(end + 5);
          inData = false;
          received.push(current);
          current = { from: '', to: [], data: '' };
          reply('250 2.0.0 Ok: queued as FAKE');
          continue;
        }
        const eol = buffer.indexOf('\r\n');
        if (eol === -1) return;
        const line = buffer.slice(0, eol);
        buffer = buffer.slice(eol + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') reply('250-fake-smtp\r\n250 8BITMIME');
        else if (verb === 'MAIL') {
          current.from = line;
          reply('250 2.1.0 Ok');
        } else if (verb === 'RCPT') {
          const code = queue.shift() ?? 250;
          if (code === 250) {
            current.to.push(line);
            reply('250 2.1.5 Ok');
          } else reply(code >= 500 ? `${code} 5.1.1 Recipient address rejected: User unknown` : `${code} 4.7.1 Try again later`);
        } else if (verb === 'DATA') {
          inData = true;
          reply('354 End data with <CR><LF>.<CR><LF>');
        } else if (verb === 'RSET') {
          current = { from: '', to: [], data: '' };
          reply('250 Ok');
        } else if (verb === 'QUIT') {
          reply('221 Bye');
          socket.end();
        } else reply('250 Ok');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    script(codes) {
      queue = [...codes];
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
