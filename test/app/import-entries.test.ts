// Library entries made by imports (issue #16.7): a WACZ is named after its datapackage.json
// title, and a file with no WARC records leaves no empty archive row behind.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppService, type AppService } from '../../core/app/app-service.ts';
import { corpusPath } from '../helpers/corpus.ts';

let libraryDir: string;
let service: AppService;

beforeAll(() => {
  libraryDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-imports-'));
  service = createAppService({ libraryDir, emit: () => {} });
});

afterAll(async () => {
  await service?.close();
  fs.rmSync(libraryDir, { recursive: true, force: true });
});

describe('imports into new library entries', () => {
  it('a WACZ is named after its title, not its file name', async () => {
    // valid_example_1.wacz (webrecorder/wacz-format test data, WACZ 1.0.0) has metadata.title "Example Collection".
    const { id, report } = await service.handlers['library.import']({ files: [corpusPath('wacz/valid_example_1.wacz')], copy: false });
    expect(report.records).toBeGreaterThan(0);
    expect(id).toBe('Example Collection');
    expect((await service.handlers['library.list']({})).map((e) => e.id)).toContain('Example Collection');
  });

  it('a file that is not a WARC: nothing imported, the refusal said, and no empty row in the library', async () => {
    const before = (await service.handlers['library.list']({})).map((e) => e.id);
    const notWarc = path.join(libraryDir, '..', `notes-${process.pid}.txt`);
    fs.writeFileSync(notWarc, 'just some text, not a WARC file\n'.repeat(20));
    try {
      const { report } = await service.handlers['library.import']({ files: [notWarc], copy: false });
      expect(report.records).toBe(0);
      expect(report.problems.length).toBeGreaterThan(0);
      expect((await service.handlers['library.list']({})).map((e) => e.id)).toEqual(before);
      expect(fs.readdirSync(libraryDir).filter((n) => n.startsWith('notes'))).toEqual([]);
    } finally {
      fs.rmSync(notWarc, { force: true });
    }
  });
});
