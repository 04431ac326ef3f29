/** The middle of the values (of an even count, the upper of the two middle ones): the figure the benches report of their rounds. */
export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
