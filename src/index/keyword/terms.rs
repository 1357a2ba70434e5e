//! Query-term statistics for calibrating relevance: which analysed terms a
//! query has, how informative each is (BM25 IDF over chunk bodies), and which terms a text has.

use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, BoostQuery, DisjunctionMaxQuery, Occur, Query, TermQuery};
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{TantivyDocument, Term};

use super::{
    KeywordError, KeywordFilter, KeywordHit, KeywordIndex, MAX_QUERY_TERMS, analyzer, tantivy_err,
};

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
        let idf = |df: f32| (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        let mut out = Vec::new();
        for (term, weight) in analyzer::weighted_query_terms(query, question_weight) {
            let mut df = 0u64;
            for field in
                [self.fields.body, self.fields.title, self.fields.headers, self.fields.tags]
            {
                df = df.max(searcher.doc_freq(&Term::from_field_text(field, &term)).unwrap_or(0));
            }
            out.push((term, weight * idf((df.max(1)) as f32).max(0.01)));
        }
        out
    }
}

/// The analysed terms of a text (the same analysis as the index, so they compare with
/// [`KeywordIndex::query_terms`]).
pub fn text_terms(text: &str) -> Vec<String> {
    analyzer::analyze(&mut analyzer::index_analyzer(), text).into_iter().map(|(_, t)| t).collect()
}

impl KeywordIndex {
    /// The IDF of each analysed term (as in [`query_terms`](Self::query_terms), the largest
    /// document frequency over the text fields) and that document frequency.
    pub fn term_idfs(&self, terms: &[&str]) -> Vec<(f32, u64)> {
        let searcher = self.reader.searcher();
        let n = searcher.num_docs() as f32;
        terms
            .iter()
            .map(|term| {
                let mut df = 0u64;
                for field in
                    [self.fields.body, self.fields.title, self.fields.headers, self.fields.tags]
                {
                    df =
                        df.max(searcher.doc_freq(&Term::from_field_text(field, term)).unwrap_or(0));
                }
                let d = df.max(1) as f32;
                ((1.0 + (n - d + 0.5) / (d + 0.5)).ln().max(0.01), df)
            })
            .collect()
    }

    /// The best `limit` chunks for already analysed `terms`, each weighing its own weight (a
    /// `SHOULD` dis-max over the weighted fields, as a query's own terms), among the chunks
    /// `filter` allows, best first. Search's pseudo-relevance feedback runs this second keyword
    /// retrieval with the terms of the first one's best memories. No term: no hits.
    pub fn search_terms(
        &self,
        terms: &[(String, f32)],
        filter: &KeywordFilter,
        limit: usize,
    ) -> Result<Vec<KeywordHit>, KeywordError> {
        let f = &self.fields;
        let b = &self.boosts;
        let weighted =
            [(f.title, b.title), (f.headers, b.headers), (f.tags, b.tags), (f.body, b.body)];
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for (term, weight) in terms.iter().take(MAX_QUERY_TERMS) {
            if *weight <= 0.0 {
                continue;
            }
            let per_field: Vec<Box<dyn Query>> = weighted
                .iter()
                .filter(|(_, boost)| *boost > 0.0)
                .map(|&(field, boost)| {
                    let tq = TermQuery::new(
                        Term::from_field_text(field, term),
                        IndexRecordOption::WithFreqs,
                    );
                    Box::new(BoostQuery::new(Box::new(tq), boost * weight)) as Box<dyn Query>
                })
                .collect();
            clauses.push((
                Occur::Should,
                Box::new(DisjunctionMaxQuery::with_tie_breaker(per_field, b.tie_breaker)),
            ));
        }
        if limit == 0 || clauses.is_empty() {
            return Ok(Vec::new());
        }
        let Some(filter_clauses) = self.filter_clauses(filter) else {
            return Ok(Vec::new());
        };
        let text_query: Box<dyn Query> = Box::new(BooleanQuery::new(clauses));
        let query: Box<dyn Query> = if filter_clauses.is_empty() {
            text_query
        } else {
            let mut all = vec![(Occur::Must, text_query)];
            all.extend(filter_clauses);
            Box::new(BooleanQuery::new(all))
        };
        let searcher = self.reader.searcher();
        let top = searcher
            .search(&query, &TopDocs::with_limit(limit).order_by_score())
            .map_err(tantivy_err("search"))?;
        let mut hits = Vec::with_capacity(top.len());
        for (score, address) in top {
            let doc: TantivyDocument =
                searcher.doc(address).map_err(tantivy_err("read a stored chunk"))?;
            let get = |field| {
                doc.get_first(field).and_then(|v| v.as_str()).unwrap_or_default().to_string()
            };
            hits.push(KeywordHit {
                chunk_id: get(self.fields.chunk_id),
                memory_id: get(self.fields.memory_id),
                score,
            });
        }
        Ok(hits)
    }
}
