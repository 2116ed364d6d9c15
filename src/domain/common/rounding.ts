/** Shares and percentages as the API gives them: one decimal for percentages, three for shares. */
export const round1 = (n: number) => Math.round(n * 10) / 10;
export const round3 = (n: number) => Math.round(n * 1000) / 1000;
