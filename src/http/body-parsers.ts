// Fastify content-type parsers for the three body types clients send (DESIGN §2).
import { Busboy } from '@fastify/busboy';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { OAuthError } from '../oauth/errors.ts';
import { MAX_PARAMS, type Params, collectParams, decodeUtf8, paramsFromJson, parseUrlEncoded } from './form-body.ts';

export const BODY_LIMIT = 64 * 1024;
const MAX_FIELD_BYTES = 8 * 1024;
const MAX_NAME_BYTES = 100;

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

const tooMany = () => new OAuthError('invalid_request', `At most ${MAX_PARAMS} parameters are accepted`);
const noFiles = () => new OAuthError('invalid_request', 'File uploads are not accepted');

/** multipart/form-data (RFC 7578) with text fields only: a file part or a truncated body is invalid_request. */
function parseMultipart(request: FastifyRequest, payload: Readable): Promise<Params> {
  return new Promise((resolve, reject) => {
    let busboy: InstanceType<typeof Busboy>;
    try {
      busboy = new Busboy({
        headers: request.headers as { 'content-type': string },
        defCharset: 'utf8',
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
    busboy.on('field', (name: string | undefined, value, _nameTruncated, valueTruncated) => {
      // RFC 7578 §4.2: every part names its field; the parser hands over undefined when one does not.
      if (name === undefined) fail(new OAuthError('invalid_request', 'A multipart part has no field name'));
      else if (valueTruncated || Buffer.byteLength(name) > MAX_NAME_BYTES) fail(new OAuthError('invalid_request', `Parameter ${name.slice(0, 40)} is too long`));
      else pairs.push([name, value]);
    });
    busboy.on('filesLimit', () => fail(noFiles()));
    busboy.on('fieldsLimit', () => fail(tooMany()));
    busboy.on('partsLimit', () => fail(tooMany()));
    busboy.on('error', () => fail(new OAuthError('invalid_request', 'The multipart body is malformed or truncated')));
    busboy.on('finish', () => {
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
