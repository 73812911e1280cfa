import { connect } from 'node:net';
import type { Body } from './api-request.ts';

/** An answer read off the socket: its status, its headers (names in lower case), its JSON body. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: Body;
}

/**
 * Sends `text` as is to 127.0.0.1:`port` and reads one answer, which must carry a
 * Content-Length and a JSON body; for requests that `app.inject` cannot send (a header or URL
 * over Node's limit, bytes that are not HTTP).
 */
export const rawHttp = (port: number, text: string) =>
  new Promise<RawAnswer>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      data += chunk;
      // One answer is all this reads; keep-alive would hold the socket open.
      const [head, body = ''] = data.split('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(head!)?.[1];
      if (length !== undefined && Buffer.byteLength(body) >= Number(length)) {
        socket.destroy();
        const [statusLine, ...lines] = head!.split('\r\n');
        resolve({
          status: Number(statusLine!.split(' ')[1]),
          headers: Object.fromEntries(
            lines.map((l) => [
              l.slice(0, l.indexOf(':')).toLowerCase(),
              l.slice(l.indexOf(':') + 2),
            ]),
          ),
          body: JSON.parse(body) as Body,
        });
      }
    });
    // The server may reset the connection once it has answered.
    socket.on('error', () => undefined);
    socket.on('close', () => reject(new Error(`closed after: ${data.slice(0, 200)}`)));
    socket.write(text);
  });
