// The package ships plain JavaScript; these are the two entry points used here.
declare module 'vader-sentiment' {
  const vader: {
    SentimentIntensityAnalyzer: {
      polarity_scores(text: string): { neg: number; neu: number; pos: number; compound: number };
    };
  };
  export default vader;
}

declare module 'vader-sentiment/src/vader_lexicon.js' {
  export const lexicon: Record<string, number>;
}
