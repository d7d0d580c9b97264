import { StewardError } from '../../../core/errors';
import { stateOf } from '../episodes';
import { xmlEscape } from '../feed';
import { fileTypeOf } from '../probe';

describe('mediahub pure functions', () => {
  it('escapes text for XML and drops characters XML cannot hold', () => {
    expect(xmlEscape('Faith & <Doubt> "quoted" \'single\'')).toBe('Faith &amp; &lt;Doubt&gt; &quot;quoted&quot; &apos;single&apos;');
    expect(xmlEscape('bell\u0007 and null\u0000 gone, tab\tkept')).toBe('bell and null gone, tab\tkept');
    expect(xmlEscape('&amp;')).toBe('&amp;amp;');
  });

  it('knows a file by its extension, refusing one it does not take', () => {
    expect(fileTypeOf('Sunday Sermon.MP4')).toEqual({ extension: 'mp4', kind: 'video', mimeType: 'video/mp4' });
    expect(fileTypeOf('talk.m4a')).toMatchObject({ kind: 'audio' });
    expect(fileTypeOf('slides.pptx')).toMatchObject({ kind: 'slides' });
    expect(() => fileTypeOf('setup.exe')).toThrow(StewardError);
    expect(() => fileTypeOf('no-extension')).toThrow(/\(no extension\)/);
  });

  it('calls a published episode scheduled until its time comes', () => {
    const now = Date.parse('2026-11-29T10:00:00Z');
    expect(stateOf({ status: 'published', publish_at: new Date('2026-11-30T06:00:00Z') }, now)).toBe('scheduled');
    expect(stateOf({ status: 'published', publish_at: new Date('2026-11-29T09:59:00Z') }, now)).toBe('published');
    expect(stateOf({ status: 'draft', publish_at: null }, now)).toBe('draft');
    expect(stateOf({ status: 'unpublished', publish_at: new Date('2026-12-01T00:00:00Z') }, now)).toBe('unpublished');
  });
});
