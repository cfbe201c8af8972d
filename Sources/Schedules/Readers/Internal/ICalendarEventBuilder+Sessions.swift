import Foundation

extension ICalendarEventBuilder {
    /// Expands every event, assigns days and assembles the document.
    mutating func build() throws(ScheduleError) -> ScheduleDocument {
        var masters: [EventData] = []
        var overrides: [String: [EventData]] = [:]
        for child in calendar.children where child.name == "VEVENT" {
            let data = try eventData(child)
            if data.recurrenceID != nil, let uid = data.uid {
                overrides[uid, default: []].append(data)
            } else {
                masters.append(data)
            }
        }
        var produced: [(session: SessionInfo, line: Int)] = []
        var mastersSeen = Set<String>()
        for master in masters {
            if let uid = master.uid, !mastersSeen.insert(uid).inserted {
                assembler.warn("duplicate UID ignored; the first VEVENT with it is kept", line: master.component.line)
                continue
            }
            let own = master.uid.flatMap { overrides.removeValue(forKey: $0) } ?? []
            try expand(master, overrides: own, into: &produced)
        }
        // Overrides whose master is missing stand alone.
        for uid in overrides.keys.sorted() {
            for data in overrides[uid] ?? [] {
                produced.append(
                    (
                        session(from: data, at: data.start.local, recurrenceInstant: data.recurrenceID?.instant),
                        data.component.line
                    ))
            }
        }
        let days = assignDays(&produced)
        for (session, line) in produced { try assembler.add(session, line: line) }
        var releaseDate: Int64? = nil
        for child in calendar.children where child.name == "VEVENT" {
            if let color = child.property("COLOR").flatMap({ FieldText.optional($0.value) }),
                let track = child.properties("CATEGORIES").lazy.flatMap({ ICalendarText.splitList($0.value) }).first
            {
                assembler.noteTrackColor(track, color)
            }
            for property in child.properties("LAST-MODIFIED") + child.properties("DTSTAMP") {
                guard let stamp = try? resolve(property.value, of: property) else { continue }
                releaseDate = max(releaseDate ?? stamp.instant, stamp.instant)
            }
        }
        let sessions = assembler.sessions
        let calendarName = calendar.property("X-WR-CALNAME").flatMap {
            FieldText.optional(ICalendarText.unescape($0.value))
        }
        let description = calendar.property("X-WR-CALDESC").flatMap {
            FieldText.optional(ICalendarText.unescape($0.value))
        }
        let conference = ConferenceInfo(
            acronym: FieldText.optional(configuration.acronym),
            title: calendarName ?? description,
            timeZone: calendarZoneName,
            timeZoneSource: calendarZoneSource,
            url: calendar.property("URL").flatMap { FieldText.optional(ICalendarText.unescape($0.value)) },
            releaseDate: releaseDate.map { Date(timeIntervalSince1970: TimeInterval($0)) },
            start: sessions.map(\.start).min(),
            end: sessions.map(\.end).max(),
            version: nil,
            source: source,
            calendarName: calendarName)
        return assembler.makeDocument(conference: conference, days: days, format: .iCalendar)
    }

    private mutating func expand(
        _ master: EventData, overrides: [EventData], into produced: inout [(session: SessionInfo, line: Int)]
    ) throws(ScheduleError) {
        let line = master.component.line
        var rule: RecurrenceRule? = nil
        if let property = master.component.property("RRULE") {
            do {
                rule = try RecurrenceRule(parsing: property.value)
            } catch {
                throw ScheduleError(
                    code: .invalidRecurrence,
                    message: "RRULE cannot be read (\(error.message)); fix the rule or remove it.",
                    line: property.line, source: source)
            }
            if let parts = rule?.unsupportedParts, !parts.isEmpty {
                assembler.warn("RRULE parts \(parts.joined(separator: ",")) are not applied", line: property.line)
            }
            if let frequency = rule?.frequency, [.hourly, .minutely, .secondly].contains(frequency) {
                assembler.warn(
                    "RRULE FREQ=\(frequency.rawValue) is not expanded; only the first instance is read",
                    line: property.line)
                rule = nil
            }
        }
        let extraDates = try resolveList("RDATE", in: master.component)
        guard rule != nil || !extraDates.isEmpty || !overrides.isEmpty else {
            produced.append((session(from: master, at: master.start.local, recurrenceInstant: nil), line))
            return
        }
        let zone = master.start.zone
        let limits = configuration.limits
        var locals: [LocalDateTime] = [master.start.local]
        if let rule {
            let expander = RecurrenceExpander(
                rule: rule, start: master.start.local, toInstant: { zone.instant(for: $0) },
                maxInstances: limits.maxRecurrenceInstances, horizon: master.start.instant + limits.recurrenceHorizon)
            let (instances, stop) = expander.expand()
            locals = instances
            switch stop {
            case .complete: break
            case .horizon:
                assembler.warn(
                    "recurring event expanded only up to the horizon of \(limits.recurrenceHorizon / 86_400) days",
                    line: line)
            case .instanceLimit:
                assembler.warn("recurring event cut at \(limits.maxRecurrenceInstances) instances", line: line)
            }
        }
        for extra in extraDates {
            let local =
                extra.isDate
                ? LocalDateTime(date: extra.local.date, secondOfDay: master.start.local.secondOfDay)
                : zone.local(atUTC: extra.instant)
            if !locals.contains(local) { locals.append(local) }
        }
        locals.sort()
        let exclusions = try resolveList("EXDATE", in: master.component)
        let excludedInstants = Set(exclusions.filter { !$0.isDate }.map(\.instant))
        let excludedDates = Set(exclusions.filter(\.isDate).map(\.local.date))
        var pending = overrides
        for local in locals {
            let instant = zone.instant(for: local)
            if excludedInstants.contains(instant) || excludedDates.contains(local.date) { continue }
            if let index = pending.firstIndex(where: { matches($0.recurrenceID, instant: instant, local: local) }) {
                let replacement = pending.remove(at: index)
                produced.append(
                    (
                        session(from: replacement, at: replacement.start.local, recurrenceInstant: instant),
                        replacement.component.line
                    ))
            } else {
                produced.append((session(from: master, at: local, recurrenceInstant: instant), line))
            }
        }
        for orphan in pending {
            assembler.warn(
                "RECURRENCE-ID matches no instance of its event; read as an extra instance",
                line: orphan.component.line)
            produced.append(
                (
                    session(from: orphan, at: orphan.start.local, recurrenceInstant: orphan.recurrenceID?.instant),
                    orphan.component.line
                ))
        }
    }

    private func matches(_ recurrenceID: ResolvedTime?, instant: Int64, local: LocalDateTime) -> Bool {
        guard let recurrenceID else { return false }
        return recurrenceID.isDate ? recurrenceID.local.date == local.date : recurrenceID.instant == instant
    }

    /// Makes a conference day of every local date (in the calendar zone) that a session belongs to, and sets
    /// `dayIndex`. A day runs from the day change (configured, else 06:00) on its date to the day change on the next
    /// date, so a session at 01:30 belongs to the day before; an all-day event belongs to its own date.
    private func assignDays(_ produced: inout [(session: SessionInfo, line: Int)]) -> [DayInfo] {
        let dayChange = configuration.dayChange ?? FrabScheduleBuilder.defaultDayChange
        var keys: [LocalDate] = []
        keys.reserveCapacity(produced.count)
        for item in produced {
            let local = calendarZone.local(at: item.session.start)
            let isEarly = !item.session.isAllDay && local.secondOfDay < dayChange
            keys.append(isEarly ? local.date.adding(days: -1) : local.date)
        }
        let ordered = Set(keys).sorted()
        var indexes: [LocalDate: Int] = [:]
        for (offset, date) in ordered.enumerated() { indexes[date] = offset + 1 }
        for position in produced.indices { produced[position].session.dayIndex = indexes[keys[position]] ?? 1 }
        return ordered.map { date in
            DayInfo(
                index: indexes[date] ?? 1, date: date.isoString,
                midnight: calendarZone.date(for: LocalDateTime(date: date)),
                start: calendarZone.date(for: LocalDateTime(date: date, secondOfDay: dayChange)),
                end: calendarZone.date(for: LocalDateTime(date: date.adding(days: 1), secondOfDay: dayChange)))
        }
    }
}
