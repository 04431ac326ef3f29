/**
 * Every catalogue at once, by language: for the dashboard's preview (which shows a form in its language) and the
 * tests. The hosted page never imports this: it carries English and loads only its form's language (./load.ts).
 */
import type { PageLanguage } from '../../languages.js';
import { catalogue as ar } from './ar.js';
import type { Catalogue } from './catalogue.js';
import { catalogue as de } from './de.js';
import { catalogue as en } from './en.js';
import { catalogue as es } from './es.js';
import { catalogue as fr } from './fr.js';
import { catalogue as he } from './he.js';
import { catalogue as it } from './it.js';
import { catalogue as ja } from './ja.js';
import { catalogue as nl } from './nl.js';
import { catalogue as pl } from './pl.js';
import { catalogue as pt } from './pt.js';

export const catalogues: Record<PageLanguage, Catalogue> = { ar, de, en, es, fr, he, it, ja, nl, pl, pt };
