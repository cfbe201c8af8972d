import Foundation

extension FetchedResultsController {
    /// Applies a change of the context to the results and reports it.
    func contextChanged(_ event: ContextEvent) {
        guard let settings else { return }
        switch event {
        case .objectsDidChange(let change):
            var candidates: [ManagedObject] = []
            for object in change.inserted where settings.entityNames.contains(object.entity.name) {
                candidates.append(object)
            }
            for set in [change.updated, change.refreshed] {
                for object in set
                where settings.entityNames.contains(object.entity.name)
                    || rowsByObject[ObjectIdentifier(object)] != nil
                {
                    candidates.append(object)
                }
            }
            for set in [change.deleted, change.invalidated] {
                for object in set where rowsByObject[ObjectIdentifier(object)] != nil { candidates.append(object) }
            }
            guard !candidates.isEmpty else { return }
            let updated = Set(change.updated.map(ObjectIdentifier.init))
                .union(change.refreshed.map(ObjectIdentifier.init))
            apply(candidates, updated: updated, settings: settings)
        case .didSave(let saved):
            // New objects now have permanent IDs, which order them among equal ones.
            let candidates = saved.insertedObjectIDs.compactMap { id -> ManagedObject? in
                guard let object = managedObjectContext.registeredObject(for: id),
                    rowsByObject[ObjectIdentifier(object)] != nil
                else { return nil }
                return object
            }
            if !candidates.isEmpty { apply(candidates, updated: [], settings: settings) }
        case .willSave:
            break
        }
    }

    /// Whether an object belongs in the results now.
    private func matches(_ object: ManagedObject, settings: Settings) -> Result? {
        guard object.managedObjectContext === managedObjectContext, !object.isDeleted, !object.isInvalid,
            settings.entityNames.contains(object.entity.name), let typed = object as? Result
        else { return nil }
        if let affected = settings.affectedStores {
            if let store = object.objectID.storeIdentifier {
                guard affected.contains(store) else { return nil }
            } else if let assigned = managedObjectContext.assignedStores[ObjectIdentifier(object)] {
                guard affected.contains(assigned.identifier) else { return nil }
            }
        }
        if let predicate = settings.predicate {
            guard (try? predicate.evaluate(with: object)) == true, !object.isInvalid else { return nil }
        }
        return typed
    }

    /// An object whose row is replaced: its old row, and the new one where it goes.
    private struct Replacement {
        let old: ResultRow<Result>
        let new: ResultRow<Result>
        var oldOffset = 0
        var newOffset = 0
        /// The nearest row before it that keeps its place (nil at the start), before and after.
        var oldAnchor: ObjectIdentifier?
        var newAnchor: ObjectIdentifier?
    }

    /// Places the changed objects again and reports what changed.
    private func apply(_ candidates: [ManagedObject], updated: Set<ObjectIdentifier>, settings: Settings) {
        let storeIndexes = storeIndexes()
        var seen: Set<ObjectIdentifier> = []
        var removed: [ResultRow<Result>] = []
        var added: [ResultRow<Result>] = []
        var replaced: [Replacement] = []
        var touched: [ResultRow<Result>] = []
        for object in candidates {
            let id = ObjectIdentifier(object)
            guard seen.insert(id).inserted else { continue }
            let old = rowsByObject[id]
            let new = matches(object, settings: settings).flatMap {
                try? makeRow(for: $0, settings: settings, storeIndexes: storeIndexes)
            }
            switch (old, new) {
            case (nil, nil): continue
            case (let old?, nil): removed.append(old)
            case (nil, let new?): added.append(new)
            case (let old?, let new?):
                if old.hasSamePlace(as: new) {
                    if updated.contains(id) { touched.append(old) }
                } else {
                    replaced.append(Replacement(old: old, new: new))
                }
            }
        }
        guard !removed.isEmpty || !added.isEmpty || !replaced.isEmpty || !touched.isEmpty else { return }

        let order = settings.order
        let oldWindow = window
        let oldRanges = sectionRanges
        let oldWindowRows = settings.isWindowed ? Array(rows[oldWindow]) : []
        // Rows that change place; every other row keeps its order relative to the others.
        var moving: Set<ObjectIdentifier> = []
        for row in removed { moving.insert(ObjectIdentifier(row.object)) }
        for row in added { moving.insert(ObjectIdentifier(row.object)) }
        for replacement in replaced { moving.insert(ObjectIdentifier(replacement.old.object)) }
        func anchor(before index: Int) -> ObjectIdentifier? {
            var index = index - 1
            while index >= 0, moving.contains(ObjectIdentifier(rows[index].object)) { index -= 1 }
            return index >= 0 ? ObjectIdentifier(rows[index].object) : nil
        }

        // Out with the old rows, last first so that the positions found stay right.
        var removedOffsets: [(offset: Int, row: ResultRow<Result>)] = []
        for row in removed {
            if let index = order.index(of: row, in: rows) { removedOffsets.append((index, row)) }
        }
        for index in replaced.indices {
            let position = order.index(of: replaced[index].old, in: rows) ?? 0
            replaced[index].oldOffset = position
            replaced[index].oldAnchor = anchor(before: position)
        }
        let touchedOffsets = touched.map { (order.index(of: $0, in: rows) ?? 0, $0) }
        var incremental = !settings.isWindowed && settings.sectionKeyPath != nil
        let positions = (removedOffsets.map(\.offset) + replaced.map(\.oldOffset)).sorted(by: >)
        for position in positions {
            rows.remove(at: position)
            if incremental { sectionRemove(at: position) }
        }
        for row in removed { rowsByObject[ObjectIdentifier(row.object)] = nil }
        // In with the new.
        for row in added + replaced.map(\.new) {
            let position = order.insertionIndex(of: row, in: rows)
            rows.insert(row, at: position)
            rowsByObject[ObjectIdentifier(row.object)] = row
            if incremental, !sectionInsert(at: position, name: row.sectionName) { incremental = false }
        }
        if !incremental { rebuildSections() }
        invalidateCaches()
        for index in replaced.indices {
            let position = order.index(of: replaced[index].new, in: rows) ?? 0
            replaced[index].newOffset = position
            replaced[index].newAnchor = anchor(before: position)
        }

        let update: (FetchedResultsUpdate, [(Result, FetchedResultsObjectChange)])
        if settings.isWindowed {
            update = windowedUpdate(old: oldWindowRows, oldRanges: oldRanges, replaced: replaced, touched: touched)
        } else {
            var addedOffsets: [(offset: Int, row: ResultRow<Result>)] = []
            for row in added { addedOffsets.append((order.index(of: row, in: rows) ?? 0, row)) }
            update = fullUpdate(
                removed: removedOffsets, added: addedOffsets, replaced: replaced,
                touched: touchedOffsets, oldRanges: oldRanges)
        }
        report(update.0, objects: update.1, oldRanges: oldRanges)
    }

    /// The update when every matching object is shown: the old and new places of the changed rows are known.
    private func fullUpdate(
        removed: [(offset: Int, row: ResultRow<Result>)],
        added: [(offset: Int, row: ResultRow<Result>)], replaced: [Replacement],
        touched: [(offset: Int, row: ResultRow<Result>)], oldRanges: [SectionRange]
    )
        -> (FetchedResultsUpdate, [(Result, FetchedResultsObjectChange)])
    {
        // A replaced row keeps its place when the same row precedes it among the rows that do (and the rows sharing
        // that anchor keep their order among themselves): then neither the snapshot nor the sections need a move.
        var byAnchor: [ObjectIdentifier?: [Int]] = [:]
        for (index, replacement) in replaced.enumerated() where replacement.oldAnchor == replacement.newAnchor {
            byAnchor[replacement.oldAnchor, default: []].append(index)
        }
        var keepsPlace = Set<Int>()
        for group in byAnchor.values {
            let byOld = group.sorted { replaced[$0].oldOffset < replaced[$1].oldOffset }
            let byNew = group.sorted { replaced[$0].newOffset < replaced[$1].newOffset }
            if byOld == byNew { keepsPlace.formUnion(group) }
        }
        var removals: [CollectionDifference<ManagedObjectID>.Change] = []
        var insertions: [CollectionDifference<ManagedObjectID>.Change] = []
        var objects: [(Result, FetchedResultsObjectChange)] = []
        let newRanges = sectionRanges
        for (offset, row) in removed {
            removals.append(.remove(offset: offset, element: row.objectID, associatedWith: nil))
            objects.append(
                (
                    row.object,
                    FetchedResultsObjectChange(
                        type: .delete, objectID: row.object.objectID,
                        indexPath: indexPath(atOffset: offset, in: oldRanges),
                        newIndexPath: nil, offset: offset, newOffset: nil)
                ))
        }
        for (offset, row) in added {
            insertions.append(.insert(offset: offset, element: row.objectID, associatedWith: nil))
            objects.append(
                (
                    row.object,
                    FetchedResultsObjectChange(
                        type: .insert, objectID: row.objectID, indexPath: nil,
                        newIndexPath: indexPath(atOffset: offset, in: newRanges), offset: nil, newOffset: offset)
                ))
        }
        var updates: [(Result, FetchedResultsObjectChange)] = []
        for (index, replacement) in replaced.enumerated() {
            let (old, new) = (replacement.oldOffset, replacement.newOffset)
            let oldPath = indexPath(atOffset: old, in: oldRanges)
            let newPath = indexPath(atOffset: new, in: newRanges)
            let stays = keepsPlace.contains(index) && replacement.old.sectionName == replacement.new.sectionName
            if !stays || replacement.old.objectID != replacement.new.objectID {
                removals.append(.remove(offset: old, element: replacement.old.objectID, associatedWith: new))
                insertions.append(.insert(offset: new, element: replacement.new.objectID, associatedWith: old))
            }
            let change = FetchedResultsObjectChange(
                type: stays ? .update : .move, objectID: replacement.new.objectID, indexPath: oldPath,
                newIndexPath: newPath, offset: old, newOffset: new)
            if stays {
                updates.append((replacement.new.object, change))
            } else {
                objects.append((replacement.new.object, change))
            }
        }
        let order = settings!.order
        for (old, row) in touched {
            let new = order.index(of: row, in: rows) ?? 0
            updates.append(
                (
                    row.object,
                    FetchedResultsObjectChange(
                        type: .update, objectID: row.objectID, indexPath: indexPath(atOffset: old, in: oldRanges),
                        newIndexPath: indexPath(atOffset: new, in: newRanges), offset: old, newOffset: new)
                ))
        }
        let difference = CollectionDifference(removals + insertions) ?? CollectionDifference([])!
        assert(removals.count + insertions.count == difference.count, "the changes make no valid difference")
        return (
            FetchedResultsUpdate(
                difference: difference, objectChanges: (objects + updates).map(\.1),
                sectionChanges: []), objects + updates
        )
    }

    /// The update when only some objects are shown: the rows shown before and after are compared.
    private func windowedUpdate(
        old: [ResultRow<Result>], oldRanges: [SectionRange], replaced: [Replacement],
        touched: [ResultRow<Result>]
    ) -> (FetchedResultsUpdate, [(Result, FetchedResultsObjectChange)]) {
        let new = Array(rows[window])
        let newRanges = sectionRanges
        let oldIdentities = old.map { ObjectIdentifier($0.object) }
        let newIdentities = new.map { ObjectIdentifier($0.object) }
        let identityDifference = newIdentities.difference(from: oldIdentities).inferringMoves()
        var removals: [CollectionDifference<ManagedObjectID>.Change] = []
        var insertions: [CollectionDifference<ManagedObjectID>.Change] = []
        var objects: [(Result, FetchedResultsObjectChange)] = []
        var moved: Set<ObjectIdentifier> = []
        for change in identityDifference {
            switch change {
            case .remove(let offset, _, let associated):
                let row = old[offset]
                removals.append(.remove(offset: offset, element: row.objectID, associatedWith: associated))
                if associated == nil {
                    objects.append(
                        (
                            row.object,
                            FetchedResultsObjectChange(
                                type: .delete, objectID: row.object.objectID,
                                indexPath: indexPath(atOffset: offset, in: oldRanges), newIndexPath: nil,
                                offset: offset,
                                newOffset: nil)
                        ))
                }
            case .insert(let offset, _, let associated):
                let row = new[offset]
                insertions.append(.insert(offset: offset, element: row.objectID, associatedWith: associated))
                if let associated {
                    moved.insert(ObjectIdentifier(row.object))
                    objects.append(
                        (
                            row.object,
                            FetchedResultsObjectChange(
                                type: .move, objectID: row.objectID,
                                indexPath: indexPath(atOffset: associated, in: oldRanges),
                                newIndexPath: indexPath(atOffset: offset, in: newRanges), offset: associated,
                                newOffset: offset)
                        ))
                } else {
                    objects.append(
                        (
                            row.object,
                            FetchedResultsObjectChange(
                                type: .insert, objectID: row.objectID, indexPath: nil,
                                newIndexPath: indexPath(atOffset: offset, in: newRanges), offset: nil, newOffset: offset
                            )
                        ))
                }
            }
        }
        // Objects shown before and after that changed without moving: updated, or moved when their section changed
        // (or their ID did, which the snapshot shows as a replacement).
        var oldOffsets: [ObjectIdentifier: Int] = [:]
        for (offset, identity) in oldIdentities.enumerated() { oldOffsets[identity] = offset }
        var newOffsets: [ObjectIdentifier: Int] = [:]
        for (offset, identity) in newIdentities.enumerated() { newOffsets[identity] = offset }
        var updates: [(Result, FetchedResultsObjectChange)] = []
        for row in touched + replaced.map(\.new) {
            let identity = ObjectIdentifier(row.object)
            guard !moved.contains(identity), let oldOffset = oldOffsets[identity], let newOffset = newOffsets[identity]
            else { continue }
            let before = old[oldOffset]
            let changesSection = before.sectionName != row.sectionName
            if changesSection || before.objectID != row.objectID {
                removals.append(.remove(offset: oldOffset, element: before.objectID, associatedWith: newOffset))
                insertions.append(.insert(offset: newOffset, element: row.objectID, associatedWith: oldOffset))
            }
            let change = FetchedResultsObjectChange(
                type: changesSection ? .move : .update, objectID: row.objectID,
                indexPath: indexPath(atOffset: oldOffset, in: oldRanges),
                newIndexPath: indexPath(atOffset: newOffset, in: newRanges), offset: oldOffset, newOffset: newOffset)
            if changesSection { objects.append((row.object, change)) } else { updates.append((row.object, change)) }
        }
        let difference = CollectionDifference(removals + insertions) ?? CollectionDifference([])!
        assert(removals.count + insertions.count == difference.count, "the changes make no valid difference")
        let ordered =
            objects.filter { $0.1.type == .delete } + objects.filter { $0.1.type == .insert }
            + objects.filter { $0.1.type == .move } + updates
        return (
            FetchedResultsUpdate(difference: difference, objectChanges: ordered.map(\.1), sectionChanges: []),
            ordered
        )
    }

    /// Tells the delegate and the update sequences.
    private func report(
        _ update: FetchedResultsUpdate, objects: [(Result, FetchedResultsObjectChange)],
        oldRanges: [SectionRange]
    ) {
        var update = update
        var oldSectionInfos: [Int: FetchedResultsSectionInfo<Result>] = [:]
        if settings?.sectionKeyPath != nil {
            let oldNames = Set(oldRanges.map(\.name))
            let newNames = Set(sectionRanges.map(\.name))
            for (index, range) in oldRanges.enumerated() where !newNames.contains(range.name) {
                update.sectionChanges.append(
                    FetchedResultsSectionChange(
                        type: .delete, name: range.name,
                        sectionIndex: index))
                oldSectionInfos[index] = FetchedResultsSectionInfo(name: range.name, objects: [])
            }
            for (index, range) in sectionRanges.enumerated() where !oldNames.contains(range.name) {
                update.sectionChanges.append(
                    FetchedResultsSectionChange(
                        type: .insert, name: range.name,
                        sectionIndex: index))
            }
        }
        guard !update.objectChanges.isEmpty || !update.sectionChanges.isEmpty || !update.difference.isEmpty else {
            return
        }
        if let delegate {
            delegate.controllerWillChangeContent(self)
            let sections = update.sectionChanges.isEmpty ? [] : (self.sections ?? [])
            for change in update.sectionChanges {
                let info =
                    change.type == .delete ? oldSectionInfos[change.sectionIndex]! : sections[change.sectionIndex]
                delegate.controller(self, didChange: info, atSectionIndex: change.sectionIndex, for: change.type)
            }
            for (object, change) in objects {
                delegate.controller(
                    self, didChange: object, at: change.indexPath, for: change.type,
                    newIndexPath: change.newIndexPath)
            }
            delegate.controllerDidChangeContent(self)
            delegate.controller(self, didChangeContentWith: update)
        }
        let continuations = streams.withLock { Array($0.values) }
        for continuation in continuations { continuation.yield(update) }
    }

    // MARK: Sections, kept up to date one row at a time

    /// Takes the row at `position` out of its section (every object shown, with a section key path).
    private func sectionRemove(at position: Int) {
        let section = sectionIndex(containing: position, in: sectionRanges)
        sectionRanges[section].count -= 1
        for later in sectionRanges.indices.dropFirst(section + 1) { sectionRanges[later].start -= 1 }
        if sectionRanges[section].count == 0 { sectionRanges.remove(at: section) }
    }

    /// Puts the row now at `position` into its section; false when that needs the sections made again (a row
    /// inside a section of another name: the sort keys do not order by section).
    private func sectionInsert(at position: Int, name: String) -> Bool {
        var next = 0
        if position > 0, !sectionRanges.isEmpty {
            let before = sectionIndex(containing: position - 1, in: sectionRanges)
            if sectionRanges[before].name == name {
                sectionRanges[before].count += 1
                for later in sectionRanges.indices.dropFirst(before + 1) { sectionRanges[later].start += 1 }
                return true
            }
            if position < sectionRanges[before].start + sectionRanges[before].count { return false }
            next = before + 1
        }
        if next < sectionRanges.count, sectionRanges[next].name == name {
            sectionRanges[next].count += 1
        } else {
            sectionRanges.insert(SectionRange(name: name, start: position, count: 1), at: next)
        }
        for later in sectionRanges.indices.dropFirst(next + 1) { sectionRanges[later].start += 1 }
        return true
    }
}
