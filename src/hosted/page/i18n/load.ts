/**
 * The catalogue of a form's language, for the page. English is built into the page script; every other language is a
 * small script of its own (src/hosted/build.ts), so a page carries one language and not eleven. Such a script defines
 * the global `FormFunnelCatalogue`; the server may already have put it in the page, otherwise it is loaded here, from
 * beside the page script. Should it fail to load, the page speaks English rather than not at all.
 */
import { builtInLanguage, type LoadedLanguage, languageOf } from '../../languages.js';
import type { Catalogue } from './catalogue.js';
import { catalogue as english } from './en.js';

/** Each language's script, by its content-hashed file name: filled in by the build (esbuild's `define`). */
declare const FORM_FUNNEL_CATALOGUE_FILES: Record<LoadedLanguage, string>;

interface CatalogueScript {
  catalogue: Catalogue;
}

const loaded = (): CatalogueScript | undefined => (globalThis as { FormFunnelCatalogue?: CatalogueScript }).FormFunnelCatalogue;

function loadScript(src: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = src;
    script.addEventListener('load', () => resolve());
    script.addEventListener('error', () => reject(new Error(`${src} did not load`)));
    document.head.append(script);
  });
}

/** The catalogue for `tag`; `scriptUrl` is the page script's own address, beside which the language scripts are. */
export async function catalogueFor(tag: string, scriptUrl: string): Promise<Catalogue> {
  const language = languageOf(tag);
  if (language === builtInLanguage) return english;
  try {
    if (!loaded()) await loadScript(new URL(FORM_FUNNEL_CATALOGUE_FILES[language], scriptUrl).href);
    return loaded()?.catalogue ?? english;
  } catch {
    return english;
  }
}
