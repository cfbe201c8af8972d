import Foundation
import ObjectGraph
@testable import ObjectGraphTestSupport

/// The part of macOS Notes' Core Data model (NotesV7) needed to read accounts, folders and notes.
enum NotesModel {
    static func make() -> ManagedObjectModel {
        let account = EntityDescription(name: "Account", properties: [
            AttributeDescription(name: "accountDescription", type: .string),
            AttributeDescription(name: "emailAddress", type: .string),
            AttributeDescription(name: "enabled", type: .boolean),
            RelationshipDescription(name: "rootFolder", destination: "Folder", inverse: "rootOfAccount"),
            RelationshipDescription(name: "trashFolder", destination: "TrashFolder", inverse: "trashAccount"),
            RelationshipDescription(name: "folders", destination: "Folder", inverse: "account", toMany: true),
        ])
        let imapAccount = EntityDescription(name: "IMAPAccount", properties: [
            AttributeDescription(name: "hostname", type: .string),
            AttributeDescription(name: "port", type: .integer32),
        ])
        account.subentities = [EntityDescription(name: "EWSAccount"), imapAccount,
                               EntityDescription(name: "LocalAccount")]
        let folder = EntityDescription(name: "Folder", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "account", destination: "Account", inverse: "folders"),
            RelationshipDescription(name: "rootOfAccount", destination: "Account", inverse: "rootFolder"),
            RelationshipDescription(name: "parent", destination: "Folder", inverse: "children"),
            RelationshipDescription(name: "children", destination: "Folder", inverse: "parent", toMany: true),
            RelationshipDescription(name: "notes", destination: "Note", inverse: "folder", toMany: true),
        ])
        let trashFolder = EntityDescription(name: "TrashFolder", properties: [
            RelationshipDescription(name: "trashAccount", destination: "Account", inverse: "trashFolder"),
        ])
        folder.subentities = [EntityDescription(name: "EWSFolder"), EntityDescription(name: "IMAPFolder"), trashFolder]
        let note = EntityDescription(name: "Note", properties: [
            AttributeDescription(name: "title", type: .string),
            AttributeDescription(name: "dateCreated", type: .date),
            AttributeDescription(name: "dateEdited", type: .date),
            RelationshipDescription(name: "folder", destination: "Folder", inverse: "notes"),
            RelationshipDescription(name: "body", destination: "NoteBody", inverse: "note"),
        ])
        note.subentities = [EntityDescription(name: "EWSNote"), EntityDescription(name: "IMAPNote")]
        let body = EntityDescription(name: "NoteBody", properties: [
            AttributeDescription(name: "htmlString", type: .string),
            RelationshipDescription(name: "note", destination: "Note", inverse: "body"),
        ])
        return ManagedObjectModel(entities: [account] + account.subentities + [folder] + folder.subentities
            + [note] + note.subentities + [body])
    }
}
