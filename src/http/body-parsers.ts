// Fastify content-type parsers for the three body types clients send.
import Busboy from 'busboy';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { OAuthError } from '../oauth/errors.ts';
import { MAX_PARAMS, type Params, collectParams, decodeUtf8, paramsFromJson, parseUrlEncoded } from './form-body.ts';

export const BODY_LIMIT = 64 * 1024;
const MAX_FIELD_BYTES = 8 * 1024;

export function registerBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_request, body, done) => {
    parseWith(() => parseUrlEncoded(decodeUtf8(body as Buffer)), done);
  });
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_request, body, done) => {
    parseWith(() => paramsFromJson(decodeUtf8(body as Buffer)), done);
  });
  app.addContentTypeParser('multipart/form-data', (request, payload, done) => {
    parseMultipart(request, payload).then((params) => done(null, params), (error: Error) => done(error, undefined));
  });
}

function parseWith(parse: () => Params, done: (error: Error | null, body?: Params) => void): void {
  try {
    done(null, parse());
  } catch (error) {
    done(error as Error);
  }
}

/** multipart/form-data with text fields only: a file part or a truncated body is invalid_request. */
function parseMultipart(request: FastifyRequest, payload: Readable): Promise<Params> {
  return new Promise((resolve, reject) => {
    let busboy: Busboy.Busboy;
    try {
      busboy = Busboy({
        headers: request.headers,
        defParamCharset: 'utf8',
        limits: { fields: MAX_PARAMS, fieldSize: MAX_FIELD_BYTES, files: 0, parts: MAX_PARAMS },
      });
    } catch {
      reject(new OAuthError('invalid_request', 'The multipart body has no valid boundary'));
      return;
    }
    const pairs: [string, string][] = [];
    let received = 0;
    let failure: OAuthError | undefined;
    const fail = (error: OAuthError) => {
      if (failure !== undefined) return;
      failure = error;
      payload.unpipe(busboy);
      payload.resume();
      reject(error);
    };
    payload.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > BODY_LIMIT) fail(new OAuthError('payload_too_large', `The request body must be at most ${BODY_LIMIT} bytes`));
    });
    busboy.on('field', (name: string | undefined, value, info) => {
      // RFC 7578 §4.2: every part names its field. busboy hands over undefined when
      // one does not, and a throw here, outside any request handler, killed the process.
      if (name === undefined) fail(new OAuthError('invalid_request', 'A multipart part has no field name'));
      else if (info.valueTruncated || info.nameTruncated) fail(new OAuthError('invalid_request', `Parameter ${name.slice(0, 40)} is too long`));
      else pairs.push([name, value]);
    });
    busboy.on('file', (_name, file) => {
      file.resume();
      fail(new OAuthError('invalid_request', 'File uploads are not accepted'));
    });
    busboy.on('filesLimit', () => fail(new OAuthError('invalid_request', 'File uploads are not accepted')));
    busboy.on('fieldsLimit', () => fail(new OAuthError('invalid_request', `At most ${MAX_PARAMS} parameters are accepted`)));
    busboy.on('partsLimit', () => fail(new OAuthError('invalid_request', `At most ${MAX_PARAMS} parameters are accepted`)));
    busboy.on('error', () => fail(new OAuthError('invalid_request', 'The multipart body is malformed or truncated')));
    busboy.on('close', () => {
      if (failure !== undefined) return;
      try {
        resolve(collectParams(pairs));
      } catch (error) {
        reject(error);
      }
    });
    payload.on('error', () => fail(new OAuthError('invalid_request', 'The request body could not be read')));
    payload.pipe(busboy);
  });
}
