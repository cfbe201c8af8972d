import Foundation
import ObjectGraph
import ObjectGraphXML
@testable import ObjectGraphTestSupport

/// The model of the Apple-written XML store in the shared folder (Xcode's own mapping-model entities), written in
/// Xcode's model format so that reading it exercises the model reader too.
///
/// Property names are camel-cased as in a real model; the store file lower-cases them, and its entity names are
/// upper-cased. `XDDevPropertyMapping` is the abstract parent whose version hash the store lists.
enum MappingModelFixture {
    static let contents = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="1" \
        systemVersion="" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="XDDevMappingModel" representedClassName="XDDevMappingModel">
                <attribute name="sourceModelPath" optional="YES" attributeType="String"/>
                <attribute name="sourceModelData" optional="YES" attributeType="Binary"/>
                <attribute name="destinationModelPath" optional="YES" attributeType="String"/>
                <attribute name="destinationModelData" optional="YES" attributeType="Binary"/>
                <relationship name="entityMappings" optional="YES" toMany="YES" deletionRule="Cascade" ordered="YES" \
        destinationEntity="XDDevEntityMapping" inverseName="mappingModel" inverseEntity="XDDevEntityMapping"/>
            </entity>
            <entity name="XDDevEntityMapping" representedClassName="XDDevEntityMapping">
                <attribute name="name" optional="YES" attributeType="String"/>
                <attribute name="sourceName" optional="YES" attributeType="String"/>
                <attribute name="destinationName" optional="YES" attributeType="String"/>
                <attribute name="mappingTypeName" optional="YES" attributeType="String"/>
                <attribute name="mappingNumber" optional="YES" attributeType="Integer 16" defaultValueString="0"/>
                <attribute name="autogenerateExpression" optional="YES" attributeType="Boolean"/>
                <attribute name="migrationPolicyClassName" optional="YES" attributeType="String"/>
                <relationship name="mappingModel" optional="YES" maxCount="1" deletionRule="Nullify" \
        destinationEntity="XDDevMappingModel" inverseName="entityMappings" inverseEntity="XDDevMappingModel"/>
                <relationship name="attributeMappings" optional="YES" toMany="YES" deletionRule="Cascade" \
        ordered="YES" \
        destinationEntity="XDDevAttributeMapping" inverseName="entityMapping" inverseEntity="XDDevAttributeMapping"/>
                <relationship name="relationshipMappings" optional="YES" toMany="YES" deletionRule="Cascade" \
        ordered="YES" destinationEntity="XDDevRelationshipMapping" inverseName="entityMapping" \
        inverseEntity="XDDevRelationshipMapping"/>
            </entity>
            <entity name="XDDevPropertyMapping" representedClassName="XDDevPropertyMapping" isAbstract="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <attribute name="autogenerateExpression" optional="YES" attributeType="Boolean"/>
                <attribute name="valueExpressionData" optional="YES" attributeType="Binary"/>
            </entity>
            <entity name="XDDevAttributeMapping" representedClassName="XDDevAttributeMapping" \
        parentEntity="XDDevPropertyMapping">
                <relationship name="entityMapping" optional="YES" maxCount="1" deletionRule="Nullify" \
        destinationEntity="XDDevEntityMapping" inverseName="attributeMappings" inverseEntity="XDDevEntityMapping"/>
            </entity>
            <entity name="XDDevRelationshipMapping" representedClassName="XDDevRelationshipMapping" \
        parentEntity="XDDevPropertyMapping">
                <relationship name="entityMapping" optional="YES" maxCount="1" deletionRule="Nullify" \
        destinationEntity="XDDevEntityMapping" inverseName="relationshipMappings" \
        inverseEntity="XDDevEntityMapping"/>
            </entity>
        </model>
        """

    static func make() throws -> ManagedObjectModel {
        try ManagedObjectModel(xmlData: Data(contents.utf8), name: "MappingModel.xcdatamodel/contents")
    }
}
