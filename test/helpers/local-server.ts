import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface LocalServer {
  /** Origin such as `http://127.0.0.1:40123`. */
  origin: string;
  port: number;
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1, port 0, that tracks its sockets so close() never hangs. */
export async function startHttpServer(handler: http.RequestListener): Promise<LocalServer> {
  const server = http.createServer(handler);
  return listen(server);
}

/**
 * A raw TCP server for responses no HTTP library would send (broken chunking, no status line,
 * resets). The handler gets the socket and the request head as a string.
 */
export async function startRawServer(onRequest: (socket: net.Socket, head: string) => void): Promise<LocalServer> {
  const server = net.createServer((socket) => {
    let buf = '';
    const onData = (d: Buffer) => {
      buf += d.toString('latin1');
      const end = buf.indexOf('\r\n\r\n');
      if (end >= 0) {
        socket.off('data', onData);
        onRequest(socket, buf.slice(0, end + 4));
      }
    };
    socket.on('data', onData);
    socket.on('error', () => {});
  });
  return listen(server);
}

async function listen(server: http.Server | net.Server): Promise<LocalServer> {
  const sockets = new Set<net.Socket>();
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
