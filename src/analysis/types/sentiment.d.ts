// AFINN-165 scorer; the package ships no types.
declare module 'sentiment' {
  interface AnalysisResult {
    score: number;
    comparative: number;
    tokens: string[];
    words: string[];
    positive: string[];
    negative: string[];
  }
  class Sentiment {
    analyze(text: string, options?: { extras?: Record<string, number>; language?: string }): AnalysisResult;
  }
  export default Sentiment;
}
