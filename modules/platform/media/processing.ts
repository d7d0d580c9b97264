import sharp from 'sharp';
import { StewardError } from '../../../core/errors';

/**
 * What the library accepts, known by the file's first bytes (never by its name or a declared
 * type alone), and what it makes of an image: its dimensions and thumbnails (sharp).
 */
export const MEDIA_TYPES = {
  png: { mimeType: 'image/png', extensions: ['png'], image: true },
  jpeg: { mimeType: 'image/jpeg', extensions: ['jpg', 'jpeg'], image: true },
  gif: { mimeType: 'image/gif', extensions: ['gif'], image: true },
  webp: { mimeType: 'image/webp', extensions: ['webp'], image: true },
  pdf: { mimeType: 'application/pdf', extensions: ['pdf'], image: false },
} as const;

export type MediaType = keyof typeof MEDIA_TYPES;

export const ACCEPTED_EXTENSIONS = Object.values(MEDIA_TYPES).flatMap((type) => [...type.extensions]);

/** Thumbnails made of every image: the longest edge at most `maxEdge` pixels, never enlarged. */
export const THUMBNAIL_VARIANTS = [
  { variant: 'small', maxEdge: 200 },
  { variant: 'medium', maxEdge: 800 },
] as const;

export type ThumbnailVariant = (typeof THUMBNAIL_VARIANTS)[number]['variant'];

/** A decoded image bigger than this many pixels is refused (a small file can decode to gigabytes). */
const MAX_INPUT_PIXELS = 60_000_000;

export function extensionOf(fileName: string): string {
  const match = /\.([A-Za-z0-9]{1,8})$/.exec(fileName.trim());
  return match ? match[1]!.toLowerCase() : '';
}

/** The type a file name promises, refused when the library does not take that kind of file. */
export function typeForName(fileName: string): MediaType {
  const extension = extensionOf(fileName);
  const type = (Object.keys(MEDIA_TYPES) as MediaType[]).find((key) => (MEDIA_TYPES[key].extensions as readonly string[]).includes(extension));
  if (!type) {
    throw new StewardError('validation_failed', `The library does not take .${extension || '(no extension)'} files`, {
      hint: `Upload one of: ${ACCEPTED_EXTENSIONS.map((ext) => `.${ext}`).join(', ')}.`,
      issues: [{ path: 'fileName', message: 'unsupported file type' }],
    });
  }
  return type;
}

/** The type the bytes are, by their signature; null when they are none the library takes. */
export function detectType(bytes: Buffer): MediaType | null {
  const starts = (signature: number[], offset = 0) => signature.every((byte, index) => bytes[offset + index] === byte);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (starts([0xff, 0xd8, 0xff])) return 'jpeg';
  if (bytes.subarray(0, 6).toString('latin1') === 'GIF87a' || bytes.subarray(0, 6).toString('latin1') === 'GIF89a') return 'gif';
  if (bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP') return 'webp';
  if (bytes.subarray(0, 5).toString('latin1') === '%PDF-') return 'pdf';
  return null;
}

export interface Thumbnail {
  variant: ThumbnailVariant;
  bytes: Buffer;
  width: number;
  height: number;
}

export interface ProcessedMedia {
  type: MediaType;
  mimeType: string;
  width: number | null;
  height: number | null;
  thumbnails: Thumbnail[];
}

function refusedContent(message: string, hint: string): StewardError {
  return new StewardError('validation_failed', message, { hint, issues: [{ path: 'file', message }] });
}

/**
 * Checks the bytes are the kind the name promised (`expected`, when there is a name) and a whole
 * file of that kind, then reads its dimensions and makes its thumbnails.
 */
export async function processMedia(bytes: Buffer, expected: MediaType | null): Promise<ProcessedMedia> {
  const type = detectType(bytes);
  if (!type) {
    throw refusedContent('The file\'s contents are not an image or PDF the library takes', `Upload one of: ${ACCEPTED_EXTENSIONS.map((ext) => `.${ext}`).join(', ')}.`);
  }
  // A JPEG named .jpg and .jpeg are the same type; anything else must match what the name said.
  if (expected && expected !== type) {
    throw refusedContent(`The file is named as ${MEDIA_TYPES[expected].mimeType} but its contents are ${MEDIA_TYPES[type].mimeType}`,
      `Name the file with a .${MEDIA_TYPES[type].extensions[0]} extension, or upload the file you meant.`);
  }
  const { mimeType } = MEDIA_TYPES[type];
  if (!MEDIA_TYPES[type].image) return { type, mimeType, width: null, height: null, thumbnails: [] };
  let width: number;
  let height: number;
  try {
    const image = sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' });
    const metadata = await image.metadata();
    if (!metadata.width || !metadata.height) throw new Error('no dimensions');
    // Dimensions as shown: a photo taken sideways (EXIF orientation 5 to 8) is displayed rotated.
    const rotated = (metadata.orientation ?? 1) >= 5;
    width = rotated ? metadata.height : metadata.width;
    height = rotated ? metadata.width : metadata.height;
    // Decoding the whole image once proves it is not truncated or corrupt past its header.
    await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' }).stats();
  } catch {
    throw refusedContent(`The file starts like ${mimeType} but is not a readable image`, 'Upload the file again; it may be damaged or cut short.');
  }
  const thumbnails: Thumbnail[] = [];
  for (const { variant, maxEdge } of THUMBNAIL_VARIANTS) {
    const { data, info } = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS })
      .rotate()
      .resize({ width: maxEdge, height: maxEdge, fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 80 })
      .toBuffer({ resolveWithObject: true });
    thumbnails.push({ variant, bytes: data, width: info.width, height: info.height });
  }
  return { type, mimeType, width, height, thumbnails };
}
