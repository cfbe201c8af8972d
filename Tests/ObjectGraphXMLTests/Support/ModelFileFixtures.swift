import Foundation
import ObjectGraph
import ObjectGraphXML
@testable import ObjectGraphTestSupport

/// Xcode model files written in code: the full element set Xcode writes (without predicate strings, so they read
/// with any predicate parser), and helpers to compare models.
enum ModelFileFixtures {
    static let fullElementSet = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22222" \
        systemVersion="22G91" minimumToolsVersion="Automatic" sourceLanguage="Swift" \
        userDefinedModelVersionIdentifier="v7" someFutureAttribute="ignored">
            <entity name="Item" representedClassName="ItemMO" isAbstract="YES" elementID="OldItem" \
        versionHashModifier="2" syncable="YES" codeGenerationType="class">
                <attribute name="i16" attributeType="Integer 16" minValueString="-5" maxValueString="500" \
        defaultValueString="7" usesScalarValueType="YES"/>
                <attribute name="i32" optional="YES" attributeType="Integer 32" defaultValueString="0" indexed="YES"/>
                <attribute name="i64" optional="YES" attributeType="Integer 64" \
        defaultValueString="-9223372036854775808"/>
                <attribute name="dec" optional="YES" attributeType="Decimal" defaultValueString="12.5" \
        minValueString="0.5"/>
                <attribute name="dbl" optional="YES" attributeType="Double" defaultValueString="0.1" \
        maxValueString="1e+300"/>
                <attribute name="flt" optional="YES" attributeType="Float" defaultValueString="1.5"/>
                <attribute name="str" optional="YES" attributeType="String" minValueString="1" maxValueString="40" \
        regularExpressionString="[A-Z]+ &amp; &lt;x&gt;" defaultValueString="Hello &quot;World&quot;" \
        elementID="oldStr">
                    <userInfo>
                        <entry key="z.key" value="last"/>
                        <entry key="a key with spaces" value="tab&#9;newline&#10;"/>
                    </userInfo>
                    <futureChild/>
                </attribute>
                <attribute name="flag" optional="YES" attributeType="Boolean" defaultValueString="YES"/>
                <attribute name="when" optional="YES" attributeType="Date" defaultDateTimeInterval="631152000" \
        minDateTimeInterval="-978307200" maxDateTimeInterval="1000000000.5" defaultValueString="now"/>
                <attribute name="blob" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES" \
        minValueString="2"/>
                <attribute name="uuid" optional="YES" attributeType="UUID" defaultValueString="" \
        usesScalarValueType="NO"/>
                <attribute name="link" optional="YES" attributeType="URI" defaultValueString="https://example.com/x"/>
                <attribute name="thing" optional="YES" attributeType="Transformable" \
        valueTransformerName="NSSecureUnarchiveFromData" customClassName="[String]"/>
                <attribute name="computed" optional="YES" transient="YES" attributeType="Undefined"/>
                <attribute name="oid" optional="YES" transient="YES" attributeType="ObjectID"/>
                <relationship name="owner" optional="YES" maxCount="1" deletionRule="Deny" destinationEntity="Owner" \
        inverseName="items" inverseEntity="Owner"/>
                <fetchedProperty name="siblings" optional="YES">
                    <fetchRequest name="fetchedPropertyFetchRequest" entity="Item"/>
                    <userInfo>
                        <entry key="k" value="v"/>
                    </userInfo>
                </fetchedProperty>
                <fetchIndex name="byI32">
                    <fetchIndexElement property="i32" type="Binary" order="ascending"/>
                    <fetchIndexElement property="str" type="Binary" order="descending"/>
                </fetchIndex>
                <uniquenessConstraints>
                    <uniquenessConstraint>
                        <constraint value="i32"/>
                        <constraint value="str"/>
                    </uniquenessConstraint>
                </uniquenessConstraints>
                <userInfo>
                    <entry key="entity.key" value="entity value"/>
                </userInfo>
            </entity>
            <entity name="Book" representedClassName="Book" parentEntity="Item">
                <attribute name="pages" attributeType="Integer 32" defaultValueString="0"/>
            </entity>
            <entity name="Owner" representedClassName="NSManagedObject">
                <relationship name="items" toMany="YES" minCount="1" maxCount="10" deletionRule="Cascade" \
        ordered="YES" destinationEntity="Item" inverseName="owner" inverseEntity="Item"/>
                <relationship name="friends" optional="YES" toMany="YES" deletionRule="No Action" \
        destinationEntity="Owner"/>
                <relationship name="best" optional="YES" maxCount="1" deletionRule="Nullify" transient="YES" \
        destinationEntity="Owner"/>
            </entity>
            <fetchRequest name="allBooks" entity="Book" fetchLimit="20" fetchBatchSize="5" resultType="2" \
        includeSubentities="NO" returnObjectsAsFaults="NO"/>
            <fetchRequest name="owners" entity="Owner"/>
            <configuration name="Library" usedWithCloudKit="YES">
                <memberEntity name="Item"/>
                <memberEntity name="Book"/>
            </configuration>
            <configuration name="People">
                <memberEntity name="Owner"/>
            </configuration>
            <elements>
                <element name="Item" positionX="0" positionY="0" width="128" height="300"/>
            </elements>
        </model>
        """

    /// A model file with one entity per name, for bundle tests.
    static func singleEntity(_ name: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="\(name)" representedClassName="\(name)">
                <attribute name="value" optional="YES" attributeType="String"/>
            </entity>
        </model>
        """
    }

    /// A `.xccurrentversion` property list naming `version` (or an empty dictionary).
    static func currentVersion(_ version: String?) -> String {
        let body =
            version.map { "<dict>\n\t<key>_XCCurrentVersionName</key>\n\t<string>\($0)</string>\n</dict>" }
            ?? "<dict/>"
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            \(body)
            </plist>
            """
    }

    static func read(_ text: String, name: String = "Fixture.xcdatamodel/contents") throws -> ManagedObjectModel {
        try ManagedObjectModel(xmlData: Data(text.utf8), name: name)
    }
}
