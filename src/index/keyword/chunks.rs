//! Per-chunk lookups for the search pipeline, by chunk id: which query terms a chunk contains
//! (read from the postings, without its text) and a chunk's stored text. Search uses them
//! instead of re-reading, re-redacting and re-chunking memory files, which cost ≈ 0.1 ms per
//! candidate (search ≤ 5 ms in the server at 10k memories).

use tantivy::schema::{Field, IndexRecordOption, Value};
use tantivy::{DocAddress, DocId, DocSet, SegmentReader, TERMINATED, TantivyDocument, Term};

use super::{ExpandedTerm, Expansion, KeywordError, KeywordIndex, tantivy_err};

/// How far a chunk has each query term ([`KeywordIndex::term_matches`]).
#[derive(Debug, Clone, PartialEq)]
pub struct TermMatches {
    /// Per query term: 1 when the chunk has the term, the expansion weight when it has only an
    /// [expansion](super::expand) of it, 0 when it has neither.
    pub weights: Vec<f32>,
    /// The expansions that stood in for a missing term (`auth→authent`).
    pub expanded: Vec<ExpandedTerm>,
}

/// The stored text of one chunk, as it was indexed (redacted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkText {
    /// The chunk's heading path (`Goals > Risks`).
    pub headers: String,
    /// The chunk's text.
    pub body: String,
}

fn io_err(action: &'static str) -> impl FnOnce(std::io::Error) -> KeywordError {
    move |e| tantivy_err(action)(e.into())
}

/// The live document of `chunk_id` in one segment, if it has one.
fn alive_doc(
    segment: &SegmentReader,
    field: Field,
    chunk_id: &str,
) -> Result<Option<DocId>, KeywordError> {
    let inverted = segment.inverted_index(field).map_err(tantivy_err("read the chunk ids"))?;
    let Some(mut postings) = inverted
        .read_postings(&Term::from_field_text(field, chunk_id), IndexRecordOption::Basic)
        .map_err(io_err("read the chunk ids"))?
    else {
        return Ok(None);
    };
    let mut doc = postings.doc();
    while doc != TERMINATED {
        if segment.alive_bitset().is_none_or(|alive| alive.is_alive(doc)) {
            return Ok(Some(doc));
        }
        doc = postings.advance();
    }
    Ok(None)
}

impl KeywordIndex {
    /// For each of `chunk_ids`, which of `terms` (analysed terms, e.g. from
    /// [`query_terms`](Self::query_terms)) occur in the chunk's title, body or tags: `found[i][t]`
    /// is whether chunk `i` contains term `t`; `None` for a chunk not in the index.
    ///
    /// These are exactly the terms [`text_terms`](super::text_terms) finds in the title, the body
    /// and each tag (the index analysed them with the same analyzer), read from the postings of
    /// the few query terms instead of re-analysing the text.
    pub fn terms_in_chunks(
        &self,
        chunk_ids: &[&str],
        terms: &[&str],
    ) -> Result<Vec<Option<Vec<bool>>>, KeywordError> {
        let f = &self.fields;
        let searcher = self.reader.searcher();
        let mut out: Vec<Option<Vec<bool>>> = vec![None; chunk_ids.len()];
        for segment in searcher.segment_readers() {
            // The candidates in this segment, by document, ascending (postings only seek forward).
            let mut docs: Vec<(DocId, usize)> = Vec::new();
            for (i, id) in chunk_ids.iter().enumerate() {
                if out[i].is_none()
                    && let Some(doc) = alive_doc(segment, f.chunk_id, id)?
                {
                    docs.push((doc, i));
                }
            }
            if docs.is_empty() {
                continue;
            }
            docs.sort_unstable();
            let mut found = vec![vec![false; terms.len()]; docs.len()];
            for field in [f.title, f.body, f.tags] {
                let inverted =
                    segment.inverted_index(field).map_err(tantivy_err("read the postings"))?;
                for (t, term) in terms.iter().enumerate() {
                    let Some(mut postings) = inverted
                        .read_postings(
                            &Term::from_field_text(field, term),
                            IndexRecordOption::Basic,
                        )
                        .map_err(io_err("read the postings"))?
                    else {
                        continue;
                    };
                    for (k, &(doc, _)) in docs.iter().enumerate() {
                        let mut at = postings.doc();
                        if at < doc {
                            at = postings.seek(doc);
                        }
                        if at == TERMINATED {
                            break;
                        }
                        if at == doc {
                            found[k][t] = true;
                        }
                    }
                }
            }
            for ((_, i), present) in docs.into_iter().zip(found) {
                out[i] = Some(present);
            }
        }
        Ok(out)
    }

    /// [`terms_in_chunks`](Self::terms_in_chunks) with the [expansions](super::expand) of
    /// `terms`: a term a chunk lacks counts at `expansion.weight` when the chunk has one of its
    /// expansions. `None` for a chunk not in the index.
    pub fn term_matches(
        &self,
        chunk_ids: &[&str],
        terms: &[&str],
        expansion: Expansion,
    ) -> Result<Vec<Option<TermMatches>>, KeywordError> {
        let expansions = self.expand_terms(terms, expansion)?;
        // The query's terms, then every expansion, in one postings pass.
        let mut all: Vec<&str> = terms.to_vec();
        all.extend(expansions.iter().flatten().map(|e| e.to.as_str()));
        let found = self.terms_in_chunks(chunk_ids, &all)?;
        Ok(found
            .into_iter()
            .map(|present| {
                let present = present?;
                let mut matches =
                    TermMatches { weights: vec![0.0; terms.len()], expanded: Vec::new() };
                let mut next = terms.len();
                for (t, expanded) in expansions.iter().enumerate() {
                    let own = &present[next..next + expanded.len()];
                    next += expanded.len();
                    if present[t] {
                        matches.weights[t] = 1.0;
                    } else if let Some(k) = own.iter().position(|p| *p) {
                        matches.weights[t] = expansion.weight;
                        matches.expanded.push(expanded[k].clone());
                    }
                }
                Some(matches)
            })
            .collect())
    }

    /// The stored text of each of `chunk_ids` (`None` for a chunk not in the index).
    pub fn chunk_texts(&self, chunk_ids: &[&str]) -> Result<Vec<Option<ChunkText>>, KeywordError> {
        let f = &self.fields;
        let searcher = self.reader.searcher();
        let mut out: Vec<Option<ChunkText>> = vec![None; chunk_ids.len()];
        for (ord, segment) in searcher.segment_readers().iter().enumerate() {
            for (i, id) in chunk_ids.iter().enumerate() {
                if out[i].is_some() {
                    continue;
                }
                let Some(doc) = alive_doc(segment, f.chunk_id, id)? else { continue };
                let stored: TantivyDocument = searcher
                    .doc(DocAddress::new(ord as u32, doc))
                    .map_err(tantivy_err("read a stored chunk"))?;
                let get = |field| {
                    stored.get_first(field).and_then(|v| v.as_str()).unwrap_or_default().to_owned()
                };
                out[i] = Some(ChunkText { headers: get(f.headers), body: get(f.body) });
            }
        }
        Ok(out)
    }
}
