//! Work shared out between the cores, for the few places that have enough of it.

/// `f` of every item of `items`, in order: on up to 4 threads, each taking a contiguous part,
/// once there are at least `min` items (below that, spawning costs more than it saves). A
/// panic in `f` goes on in the caller.
pub(crate) fn map_in_order<T: Sync, U: Send>(
    items: &[T],
    min: usize,
    f: impl Fn(&T) -> U + Sync,
) -> Vec<U> {
    let threads = std::thread::available_parallelism().map_or(1, usize::from).clamp(1, 4);
    if threads == 1 || items.len() < min.max(2) {
        return items.iter().map(f).collect();
    }
    let f = &f;
    std::thread::scope(|scope| {
        let parts: Vec<_> = items
            .chunks(items.len().div_ceil(threads))
            .map(|part| scope.spawn(move || part.iter().map(f).collect::<Vec<U>>()))
            .collect();
        parts
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}
