//! Query-term statistics for calibrating relevance: which analysed terms a
//! query has, how informative each is (BM25 IDF over chunk bodies), and which terms a text has.

use super::{KeywordIndex, analyzer};

impl KeywordIndex {
    /// The query's distinct analysed terms with their IDF, `ln(1 + (N − df + 0.5) / (df + 0.5))`
    /// over the chunks. A term no chunk contains gets the IDF of a term in one chunk, so a stray
    /// word cannot outweigh the rest of the query.
    ///
    /// A [question word](analyzer::QUESTION_WORDS)'s IDF is multiplied by `question_weight`
    /// (and the term left out at 0), as in [`search_weighted`](KeywordIndex::search_weighted).
    pub fn query_terms(&self, query: &str, question_weight: f32) -> Vec<(String, f32)> {
        let searcher = self.reader.searcher();
        let n = searcher.num_docs() as f32;
        let mut out = Vec::new();
        for (term, weight) in analyzer::weighted_query_terms(query, question_weight) {
            let df = self.doc_freq(&searcher, &term);
            out.push((term, weight * idf(n, df)));
        }
        out
    }

    /// Each analysed term's IDF (as in [`query_terms`](Self::query_terms)) and its document
    /// frequency, the largest over the text fields.
    pub fn term_idfs(&self, terms: &[&str]) -> Vec<(f32, u64)> {
        let searcher = self.reader.searcher();
        let n = searcher.num_docs() as f32;
        terms
            .iter()
            .map(|term| {
                let df = self.doc_freq(&searcher, term);
                (idf(n, df), df)
            })
            .collect()
    }

    /// The mean length of a chunk's body, in indexed terms (0 for an empty index): how much one
    /// chunk of this vault holds — a line of a conversation, or a section of a long document.
    pub fn mean_chunk_terms(&self) -> f64 {
        let searcher = self.reader.searcher();
        let (mut terms, mut docs) = (0u64, 0u64);
        for segment in searcher.segment_readers() {
            if let Ok(inverted) = segment.inverted_index(self.fields.body) {
                terms += inverted.total_num_tokens();
                docs += u64::from(segment.max_doc());
            }
        }
        if docs == 0 { 0.0 } else { terms as f64 / docs as f64 }
    }
}

/// The analysed terms of a text (the same analysis as the index, so they compare with
/// [`KeywordIndex::query_terms`]).
pub fn text_terms(text: &str) -> Vec<String> {
    analyzer::analyze(&mut analyzer::index_analyzer(), text).into_iter().map(|(_, t)| t).collect()
}

/// BM25's IDF of a term in `df` of `n` chunks, `ln(1 + (n − df + 0.5) / (df + 0.5))`: a term no
/// chunk contains counts as in one, and no term weighs less than 0.01.
fn idf(n: f32, df: u64) -> f32 {
    let d = df.max(1) as f32;
    (1.0 + (n - d + 0.5) / (d + 0.5)).ln().max(0.01)
}
