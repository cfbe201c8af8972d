import Foundation

extension ManagedObjectContext {
    /// Whether the context merges the saves of the other contexts of its coordinator by itself (Core Data's
    /// `automaticallyMergesChangesFromParent`); for a child context (``init(parent:)``), the changes saved into or
    /// by its parent.
    ///
    /// A context at the top of its chain merges the saves of the other top contexts on its coordinator. Such a
    /// context belongs to one isolation domain and a save happens in another, so a save is not merged at once: it
    /// waits in the context and is merged, as by ``mergeChanges(fromContextDidSave:)``, at the context's next
    /// ``processPendingChanges()`` (which every fetch and save runs first), or when ``mergePendingSaves()`` is
    /// called. A `PersistentContainer`'s ``PersistentContainer/viewContext`` also merges on the main actor as soon as
    /// a save commits.
    ///
    /// A child context shares its parent's isolation domain and merges at once, when its parent saves (to the
    /// stores or into its own parent) and when a sibling's save lands in the parent: the objects it registered are
    /// refreshed from the parent with its own unsaved changes kept on top (as ``refresh(_:mergeChanges:)`` with
    /// `true`), and objects deleted there are removed. It does not merge the saves of other top contexts, nor what
    /// its parent merges in turn. The context's own saves are never merged into it. Off by default.
    public var automaticallyMergesChangesFromParent: Bool {
        get { automaticMerging != nil }
        set {
            guard newValue != (automaticMerging != nil) else { return }
            guard newValue else {
                automaticMerging = nil
                return
            }
            let merging = AutomaticMerging(context: self)
            automaticMerging = merging
            // The view context (``mergesOnMainActorWhenMerging``): on the main actor, a save is merged as soon as it
            // commits.
            guard mergesOnMainActorWhenMerging else { return }
            let box = UncheckedContextReference(self)
            merging.wakesMainActor.withLock { wake in
                wake = { @Sendable in
                    Task { @MainActor in box.mergePendingSaves() }
                }
            }
        }
    }

    /// Merges the saves of other contexts that are waiting (see ``automaticallyMergesChangesFromParent``); does
    /// nothing when none is, or when automatic merging is off.
    public func mergePendingSaves() {
        guard let automaticMerging, automaticMerging.hasPending else { return }
        let events = automaticMerging.take()
        guard !events.isEmpty else { return }
        var merged = ContextDidSave()
        for event in events {
            merged.insertedObjectIDs.formUnion(event.insertedObjectIDs)
            merged.updatedObjectIDs.formUnion(event.updatedObjectIDs)
            merged.deletedObjectIDs.formUnion(event.deletedObjectIDs)
        }
        merged.updatedObjectIDs.subtract(merged.deletedObjectIDs)
        mergeChanges(fromContextDidSave: merged)
    }
}

extension ManagedObjectContext {
    /// Whether a child of this context merges automatically, so that a save builds its event for it.
    var hasMergingChildren: Bool {
        childLinks.contains { $0.context?.automaticMerging != nil }
    }

    /// Merges a save that reached this context (its own, or a child's pushed into it) into the children that merge
    /// automatically, except the one it came from.
    func mergeIntoChildren(_ event: ContextDidSave, except origin: ManagedObjectContext? = nil) {
        for link in childLinks {
            guard let child = link.context, child !== origin, child.automaticMerging != nil else { continue }
            child.mergeChanges(fromContextDidSave: event)
        }
    }
}

/// The saves waiting for a context that merges automatically, and its save observer on the coordinator (removed
/// when the context, which owns this, goes away).
final class AutomaticMerging: Sendable {
    private let coordinator: PersistentStoreCoordinator
    private let token: UUID?
    private let inbox: LockedValue<[ContextDidSave]>
    private let pending: LockedValue<Bool>
    /// What a save does besides queuing itself: wakes the main actor (for the view context).
    let wakesMainActor = LockedValue<(@Sendable () -> Void)?>(nil)

    init(context: ManagedObjectContext) {
        let own = ObjectIdentifier(context)
        let inbox = LockedValue<[ContextDidSave]>([])
        let pending = LockedValue(false)
        let wake = wakesMainActor
        coordinator = context.persistentStoreCoordinator
        self.inbox = inbox
        self.pending = pending
        // A child hears of its parent's saves from the parent itself (see `mergeIntoChildren`), not of the other
        // contexts' saves to the stores.
        guard context.parent == nil else {
            token = nil
            return
        }
        token = coordinator.addSaveObserver { event in
            guard event.contextIdentifier != own else { return }
            inbox.withLock { $0.append(event) }
            pending.withLock { $0 = true }
            wake.withLock { $0 }?()
        }
    }

    deinit {
        if let token { coordinator.removeSaveObserver(token) }
    }

    var hasPending: Bool { pending.withLock { $0 } }

    func take() -> [ContextDidSave] {
        pending.withLock { $0 = false }
        return inbox.withLock { events in
            defer { events.removeAll() }
            return events
        }
    }
}

/// A context reference that crosses to the main actor, where the view context lives: it is only dereferenced there.
// Read only on the main actor, where the view context lives.
private final class UncheckedContextReference: @unchecked Sendable {
    weak var context: ManagedObjectContext?

    init(_ context: ManagedObjectContext) {
        self.context = context
    }

    @MainActor
    func mergePendingSaves() {
        context?.mergePendingSaves()
    }
}
