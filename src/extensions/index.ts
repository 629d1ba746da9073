// The one place extensions are registered. Adding an extension = a new folder + one line here.

import type { ExtensionPlugin } from './types';
import { registryCacheExtension } from './registry-cache';
import { falcoExtension } from './falco';
import { lakomExtension } from './lakom';

export const EXTENSIONS: readonly ExtensionPlugin<any>[] = [registryCacheExtension, falcoExtension, lakomExtension];

export function findExtension(name: string): ExtensionPlugin<any> | undefined {
  return EXTENSIONS.find((e) => e.name === name);
}
