/** Dates and numbers as people read them, in their own locale and time zone. */
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const number = new Intl.NumberFormat();
const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });

export const formatDateTime = (iso: string | null | undefined): string => (iso ? dateTime.format(new Date(iso)) : '—');
export const formatNumber = (value: number): string => number.format(value);
export const formatPercent = (ratio: number): string => percent.format(ratio);
